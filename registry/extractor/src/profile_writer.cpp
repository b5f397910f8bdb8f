// The profile file, written the same way every time: fixed key order,
// 2-space indent, one trace error, bytecode, fast function or parameter a
// line, so that a regenerated file diffs cleanly against the committed one.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "ljcheck/extractor.h"

namespace ljcheck::extractor {
namespace {

std::string quote(const std::string& text) { return nlohmann::json(text).dump(); }

std::string stringList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quote(items[i]);
  return out + "]";
}

// "key": [\n    line,\n    line\n  ]  -- one entry a line.
std::string block(const std::string& key, const std::vector<std::string>& lines, char open, char close) {
  std::string out = "  " + quote(key) + ": " + open;
  if (lines.empty()) return out + close;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? ",\n    " : "\n    ") + lines[i];
  return out + "\n  " + close;
}

std::string fastFunctionLine(const FastFunction& f) {
  std::string line = "{\"name\": " + quote(f.name) + ", \"recorder\": ";
  if (!f.recorded()) return line + "null}";
  return line + quote(f.recorder) + ", \"errors\": " + stringList(f.errors) + "}";
}

}  // namespace

std::string toJson(const ExtractedProfile& p) {
  std::vector<std::string> fields;
  auto field = [&fields](const std::string& key, const std::string& value) {
    fields.push_back("  " + quote(key) + ": " + value);
  };
  field("formatVersion", "1");
  field("name", quote(p.name));
  field("description", quote(p.description));
  field("generatedBy", quote(p.generatedBy));
  field("luajit", "{\"version\": " + quote(p.version) + ", \"versionNum\": " + std::to_string(p.versionNum) +
                      ", \"openresty\": " + (p.openresty ? "true" : "false") + "}");
  field("arch", quote(p.arch));
  field("os", quote(p.os));
  field("gc64", p.gc64 ? "true" : "false");
  field("jitFlags", stringList(p.jitFlags));

  std::vector<std::string> lines;
  for (const auto& e : p.traceErrors)
    lines.push_back("{\"name\": " + quote(e.name) + ", \"message\": " + quote(e.message) + "}");
  fields.push_back(block("traceErrors", lines, '[', ']'));
  lines.clear();
  for (const auto& b : p.bytecodes)
    lines.push_back("{\"name\": " + quote(b.name) + ", \"a\": " + quote(b.a) + ", \"b\": " + quote(b.b) +
                    ", \"cd\": " + quote(b.cd) + ", \"mm\": " + quote(b.mm) + "}");
  fields.push_back(block("bytecodes", lines, '[', ']'));
  lines.clear();
  for (const auto& f : p.fastFunctions) lines.push_back(fastFunctionLine(f));
  fields.push_back(block("fastFunctions", lines, '[', ']'));

  field("nyiBytecodes", stringList(p.nyiBytecodes));
  field("neverStitch", stringList(p.neverStitch));
  lines.clear();
  for (const auto& param : p.params) lines.push_back(quote(param.name) + ": " + std::to_string(param.value));
  fields.push_back(block("params", lines, '{', '}'));
  lines.clear();
  for (const auto& c : p.hotCounters) lines.push_back(quote(c.name) + ": " + std::to_string(c.value));
  fields.push_back(block("hotCounters", lines, '{', '}'));
  field("cFunctions", stringList(p.cFunctions));
  lines.clear();
  for (const auto& [function, returns] : p.returnsFunction) lines.push_back(quote(function) + ": " + quote(returns));
  fields.push_back(block("returnsFunction", lines, '{', '}'));
  lines.clear();
  for (const auto& [recorder, errors] : p.recorderErrors) lines.push_back(quote(recorder) + ": " + stringList(errors));
  fields.push_back(block("recorderErrors", lines, '{', '}'));

  std::string out = "{\n";
  for (std::size_t i = 0; i < fields.size(); ++i) out += fields[i] + (i + 1 < fields.size() ? ",\n" : "\n");
  return out + "}\n";
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temp = target.parent_path() / ("." + target.filename().string() + ".tmp" + std::to_string(getpid()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw ExtractError(path, "cannot be written");
    }
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw ExtractError(path, "cannot be written: " + ec.message());
  }
}

}  // namespace ljcheck::extractor
