// The hand-written overlay: facts about a build that no scan of its source
// can establish, each with the reason it is there. Read strictly, so that a
// typo or an entry without its reason is an error, not a silent gap.
//
//   {
//     "name": "debian-2.1-20220320",            short profile name
//     "description": "...",                     one line for `registry show`
//     "returnsFunction": [{"function": "string.gmatch", "returns": "string.gmatch_aux", "why": "..."}],
//     "cFunctions": [{"name": "...", "why": "..."}],          beyond luaL_register's
//     "override": [{"field": "arch", "value": "x64", "why": "..."}]   when the target
//   }                                                                    differs from the host
#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scans.h"

namespace ljcheck::extractor {
namespace {

using nlohmann::json;

class OverlayReader {
 public:
  explicit OverlayReader(std::string path) : path_(std::move(path)) {}

  json load() const {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw ExtractError(path_, "cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    try {
      json overlay = json::parse(text.str());
      if (!overlay.is_object()) fail("is not a JSON object");
      return overlay;
    } catch (const json::parse_error& e) {
      fail(std::string("is not valid JSON: ") + e.what());
    }
  }

  [[noreturn]] void fail(const std::string& what) const { throw ExtractError(path_, what); }

  // Each entry is an object with exactly `keys`, all strings except `value`,
  // and a non-empty "why".
  void checkEntry(const json& entry, const std::string& list, std::initializer_list<const char*> keys) const {
    const std::string where = list + " entry " + entry.dump();
    if (!entry.is_object()) fail(where + " is not an object");
    for (const char* key : keys) {
      if (!entry.contains(key)) fail(where + " has no \"" + key + "\"");
      if (std::string(key) != "value" && !entry.at(key).is_string()) fail(where + ": \"" + key + "\" is not a string");
    }
    if (entry.size() != keys.size()) fail(where + " has keys other than the expected ones");
    if (entry.at("why").get<std::string>().empty()) fail(where + " gives no reason (\"why\")");
  }

 private:
  std::string path_;
};

bool isFastFunction(const ExtractedProfile& p, const std::string& name) {
  return std::any_of(p.fastFunctions.begin(), p.fastFunctions.end(), [&](const auto& f) { return f.name == name; });
}

bool isCFunction(const ExtractedProfile& p, const std::string& name) {
  return std::find(p.cFunctions.begin(), p.cFunctions.end(), name) != p.cFunctions.end();
}

void applyOverride(const OverlayReader& reader, const json& entry, ExtractedProfile& p) {
  const std::string field = entry.at("field").get<std::string>();
  const json& value = entry.at("value");
  auto want = [&](bool ok) {
    if (!ok) reader.fail("override of " + field + " has a value of the wrong type");
  };
  if (field == "arch" || field == "os" || field == "version") {
    want(value.is_string());
    (field == "arch" ? p.arch : field == "os" ? p.os : p.version) = value.get<std::string>();
  } else if (field == "gc64" || field == "openresty") {
    want(value.is_boolean());
    (field == "gc64" ? p.gc64 : p.openresty) = value.get<bool>();
  } else if (field == "versionNum") {
    want(value.is_number_integer());
    p.versionNum = value.get<std::int64_t>();
  } else if (field == "jitFlags") {
    want(value.is_array() && std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); }));
    p.jitFlags = value.get<std::vector<std::string>>();
  } else {
    reader.fail("override of unknown field \"" + field + "\"");
  }
}

}  // namespace

void applyOverlay(const std::string& overlayPath, ExtractedProfile& p) {
  const OverlayReader reader(overlayPath);
  const json overlay = reader.load();
  for (const auto& [key, value] : overlay.items()) {
    if (key == "name" || key == "description") {
      if (!value.is_string()) reader.fail("\"" + key + "\" is not a string");
      (key == "name" ? p.name : p.description) = value.get<std::string>();
      continue;
    }
    if (key != "cFunctions" && key != "returnsFunction" && key != "override")
      reader.fail("unknown key \"" + key + "\"");
    if (!value.is_array()) reader.fail("\"" + key + "\" is not a list");
    for (const json& entry : value) {
      if (key == "cFunctions") {
        reader.checkEntry(entry, key, {"name", "why"});
        const std::string name = entry.at("name").get<std::string>();
        if (isCFunction(p, name) || isFastFunction(p, name)) reader.fail("cFunctions: the scan already knows " + name);
        p.cFunctions.push_back(name);
      } else if (key == "returnsFunction") {
        reader.checkEntry(entry, key, {"function", "returns", "why"});
        const std::string function = entry.at("function").get<std::string>();
        const std::string returns = entry.at("returns").get<std::string>();
        if (!isFastFunction(p, function) && !isCFunction(p, function))
          reader.fail("returnsFunction: " + function + " is not a library function of this build");
        if (returns != "C" && !isFastFunction(p, returns))
          reader.fail("returnsFunction: " + returns + " is neither a fast function of this build nor \"C\"");
        for (const auto& known : p.returnsFunction)
          if (known.first == function) reader.fail("returnsFunction: " + function + " is listed twice");
        p.returnsFunction.emplace_back(function, returns);
      } else {
        reader.checkEntry(entry, key, {"field", "value", "why"});
        applyOverride(reader, entry, p);
      }
    }
  }
}

}  // namespace ljcheck::extractor
