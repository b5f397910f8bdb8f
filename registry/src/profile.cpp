// Recorder profiles loaded from registry/profiles/*.json.
#include "ljcheck/profile.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "builtin_data.h"

namespace ljcheck {

RecorderProfile RecorderProfile::fromJson(std::string_view text) {
  RecorderProfile p;
  try {
    auto j = nlohmann::json::parse(text);
    p.name = j.at("name").get<std::string>();
    p.description = j.value("description", "");
    const auto& lj = j.at("luajit");
    p.version = lj.at("version").get<std::string>();
    p.versionNum = lj.value("versionNum", 0);
    p.openresty = lj.value("openresty", false);
    p.arch = j.at("arch").get<std::string>();
    p.os = j.at("os").get<std::string>();
    p.gc64 = j.value("gc64", true);
    p.jitFlags = j.at("jitFlags").get<std::vector<std::string>>();
    for (const auto& e : j.at("traceErrors"))
      p.traceErrors.push_back({e.at("name").get<std::string>(), e.at("message").get<std::string>()});
    for (const auto& b : j.at("bytecodes"))
      p.bytecodes.push_back({b.at("name").get<std::string>(), b.value("a", "none"),
                             b.value("b", "none"), b.value("cd", "none"), b.value("mm", "none")});
    for (const auto& f : j.at("fastFunctions")) {
      FastFunctionDef def{f.at("name").get<std::string>(), {}};
      if (f.contains("recorder") && f.at("recorder").is_string())
        def.recorder = f.at("recorder").get<std::string>();
      p.fastFunctions.push_back(std::move(def));
    }
    for (const auto& n : j.at("nyiBytecodes")) p.nyiBytecodes.insert(n.get<std::string>());
    for (const auto& n : j.at("neverStitch")) p.neverStitch.insert(n.get<std::string>());
    for (const auto& n : j.value("cFunctions", nlohmann::json::array()))
      p.cFunctions.insert(n.get<std::string>());
    const auto returnsFunction = j.value("returnsFunction", nlohmann::json::object());
    for (const auto& [k, v] : returnsFunction.items())  // items() of a temporary would dangle
      p.returnsFunction[k] = v.get<std::string>();
    const auto recorderErrors = j.value("recorderErrors", nlohmann::json::object());
    for (const auto& [k, v] : recorderErrors.items()) p.recorderErrors[k] = v.get<std::vector<std::string>>();
    for (const auto& [k, v] : j.at("params").items())
      if (v.is_number_integer()) p.params[k] = v.get<std::int64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("recorder profile: " + std::string(e.what()));
  }
  p.id = computeProfileId(p.facts());
  p.index();
  return p;
}

void RecorderProfile::index() {
  fastFunctionIndex.clear();
  libraryTables.clear();
  auto addTables = [this](const std::string& function) {
    for (std::size_t dot = function.find('.'); dot != std::string::npos; dot = function.find('.', dot + 1))
      libraryTables.insert(function.substr(0, dot));
  };
  for (std::size_t i = 0; i < fastFunctions.size(); ++i) {
    fastFunctionIndex.emplace(fastFunctions[i].name, i);  // the first of a name wins, as in a scan
    addTables(fastFunctions[i].name);
  }
  for (const auto& c : cFunctions) addTables(c);
}

bool RecorderProfile::isLibraryTable(std::string_view table) const {
  return libraryTables.find(table) != libraryTables.end();
}

ProfileFacts RecorderProfile::facts() const {
  ProfileFacts f;
  f.version = version;
  f.arch = arch;
  f.os = os;
  f.jitFlags = jitFlags;
  f.bytecodeNames = bytecodeNames();
  for (const auto& ff : fastFunctions) f.fastFunctionNames.push_back(ff.name);
  for (const auto& te : traceErrors) f.traceErrorMessages.push_back(te.message);
  return f;
}

std::vector<std::string> RecorderProfile::bytecodeNames() const {
  std::vector<std::string> names;
  names.reserve(bytecodes.size());
  for (const auto& b : bytecodes) names.push_back(b.name);
  return names;
}

const FastFunctionDef* RecorderProfile::fastFunction(std::string_view n) const {
  if (!fastFunctionIndex.empty()) {
    auto it = fastFunctionIndex.find(n);
    return it == fastFunctionIndex.end() ? nullptr : &fastFunctions[it->second];
  }
  for (const auto& f : fastFunctions)  // not indexed yet
    if (f.name == n) return &f;
  return nullptr;
}

std::optional<int> RecorderProfile::traceErrorCode(std::string_view n) const {
  for (size_t i = 0; i < traceErrors.size(); ++i)
    if (traceErrors[i].name == n) return static_cast<int>(i);
  return std::nullopt;
}

std::int64_t RecorderProfile::param(std::string_view n, std::int64_t fallback) const {
  auto it = params.find(std::string(n));
  return it == params.end() ? fallback : it->second;
}

const std::vector<RecorderProfile>& builtinProfiles() {
  static const std::vector<RecorderProfile> profiles = [] {
    std::vector<RecorderProfile> v;
    for (const EmbeddedFile* f = kProfileFiles; f->name; ++f) {
      v.push_back(RecorderProfile::fromJson(f->contents));
      v.back().supported = true;
    }
    return v;
  }();
  return profiles;
}

const RecorderProfile* findProfile(std::string_view nameOrId) {
  for (const auto& p : builtinProfiles())
    if (p.name == nameOrId || p.id == nameOrId) return &p;
  return nullptr;
}

const RecorderProfile& defaultProfile() {
  // The embedded VM is Debian's LuaJIT; tests check that this profile equals it.
  const RecorderProfile* p = findProfile(LJCHECK_DEFAULT_PROFILE);
  if (!p) throw std::runtime_error("default recorder profile missing from the registry");
  return *p;
}

}  // namespace ljcheck
