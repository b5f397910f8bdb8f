// The analyzer pipeline for one file: read, compile with the embedded LuaJIT
// (or take a bytecode dump as it is), decode the dump, run every rule family
// over every prototype. And the parallel driver over many files.
#include "ljcheck/analyzer.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/compile.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"

namespace fs = std::filesystem;

namespace ljcheck {

std::string_view toString(Context c) {
  switch (c) {
    case Context::Loop: return "loop";
    case Context::Function: return "function";
    case Context::Main: return "main";
  }
  return "function";
}

namespace {

constexpr std::string_view kDumpMagic = "\x1bLJ";

// Decoding uses the embedded VM's bytecode numbering (it wrote the dump);
// the rules use the selected profile's recorder facts.
const bytecode::OpcodeTable& embeddedOpcodes() {
  static const bytecode::OpcodeTable table(defaultProfile().bytecodeNames());
  return table;
}

std::vector<Prediction> runRules(const bytecode::Chunk& chunk, const RecorderProfile& profile,
                                 const std::string& path) {
  flow::ValueMap values(chunk, profile);
  flow::CallGraph calls(chunk, values);
  rules::CollectingSink sink(path);
  for (std::size_t i = 0; i < chunk.prototypes.size(); ++i) {
    flow::LoopMap loops(chunk.prototypes[i]);
    rules::FunctionView view{chunk, i, chunk.prototypes[i], loops, values, calls, profile,
                             ReasonCatalog::builtin()};
    for (const auto& rule : rules::allRules()) rule->check(view, sink);
  }
  auto predictions = sink.take();
  std::stable_sort(predictions.begin(), predictions.end(), [](const Prediction& a, const Prediction& b) {
    return a.line != b.line ? a.line < b.line : a.reasonId < b.reasonId;
  });
  return predictions;
}

FileResult analyzeWith(LuaCompiler& compiler, std::string_view source, const std::string& path,
                       const RecorderProfile& profile) {
  FileResult result;
  result.path = path;
  std::string dump;
  if (source.substr(0, kDumpMagic.size()) == kDumpMagic) {
    dump.assign(source);  // already bytecode: read it as it is
  } else {
    if (source.find('\0') != std::string_view::npos) {
      result.errors.push_back({FileError::Kind::Input, path, 0, "binary file, not Lua source"});
      return result;
    }
    CompileResult compiled = compiler.compile(source, path);
    if (!compiled.ok()) {
      result.errors.push_back({FileError::Kind::Syntax, path, compiled.error->line, compiled.error->message});
      return result;
    }
    dump = std::move(compiled.dump);
  }
  try {
    bytecode::Chunk chunk = bytecode::readDump(dump, embeddedOpcodes(), path);
    result.predictions = runRules(chunk, profile, path);
  } catch (const bytecode::DumpError& e) {
    result.errors.push_back({FileError::Kind::Input, path, 0, e.what()});
  }
  return result;
}

std::string displayPath(const std::string& file, const fs::path& root) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  if (ec) return file;
  fs::path rel = abs.lexically_normal().lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return file;
  return rel.generic_string();
}

FileResult analyzeFile(LuaCompiler& compiler, const std::string& file, const std::string& shown,
                       const AnalyzeOptions& options, const RecorderProfile& profile) {
  FileResult result;
  result.path = shown;
  std::error_code ec;
  auto size = fs::file_size(file, ec);
  if (!ec && size > options.maxFileBytes) {
    result.errors.push_back({FileError::Kind::Input, shown, 0,
                             "file too large (" + std::to_string(size) + " bytes; the limit is " +
                                 std::to_string(options.maxFileBytes) + ")"});
    return result;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    result.errors.push_back({FileError::Kind::Io, shown, 0, "cannot open file: " + std::string(std::strerror(errno))});
    return result;
  }
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    result.errors.push_back({FileError::Kind::Io, shown, 0, "cannot read file: " + std::string(std::strerror(errno))});
    return result;
  }
  return analyzeWith(compiler, content, shown, profile);
}

}  // namespace

FileResult analyzeSource(std::string_view source, const std::string& path, const RecorderProfile& profile) {
  LuaCompiler compiler;
  return analyzeWith(compiler, source, path, profile);
}

std::vector<FileResult> analyzeFiles(const std::vector<std::string>& files, const AnalyzeOptions& options) {
  const RecorderProfile& profile = options.profile ? *options.profile : defaultProfile();
  std::error_code ec;
  fs::path root = fs::absolute(options.root.empty() ? fs::current_path(ec) : fs::path(options.root), ec)
                      .lexically_normal();
  std::vector<FileResult> results(files.size());
  std::atomic<std::size_t> next{0}, done{0};
  auto worker = [&] {
    LuaCompiler compiler;
    for (std::size_t i = next++; i < files.size(); i = next++) {
      results[i] = analyzeFile(compiler, files[i], displayPath(files[i], root), options, profile);
      std::size_t n = ++done;
      if (options.progress) options.progress(n, files.size());
    }
  };
  unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(files.size())));
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  return results;
}

}  // namespace ljcheck
