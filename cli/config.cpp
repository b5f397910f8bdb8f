// Reads `.ljcheck.toml` with toml11 (config.h). Unknown keys and wrong
// types are errors with the position toml11 keeps for every value.
#include "config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <set>
#include <tuple>
#include <toml.hpp>

#include "ljcheck/analyzer.h"
#include "ljcheck/reason_names.h"
#include "toml_errors.h"
#include "toml_guards.h"
#include "ljcheck/system_error_text.h"

namespace fs = std::filesystem;

namespace ljcheck::cli {
namespace {

// Thrown inside this file only: one error line for loadConfig to return.
struct ConfigError {
  std::string message;
};

std::string position(const toml::value& v) {
  auto loc = v.location();
  return loc.file_name() + ":" + std::to_string(loc.line()) + ":" + std::to_string(loc.column());
}

[[noreturn]] void fail(const toml::value& at, const std::string& what) { throw ConfigError{position(at) + ": " + what}; }

std::string typeName(const toml::value& v) {
  std::ostringstream out;
  out << v.type();
  return out.str();
}

std::string asString(const toml::value& v, const std::string& key) {
  if (!v.is_string()) fail(v, "'" + key + "' must be a string, not " + typeName(v));
  return v.as_string().str;
}

std::vector<std::string> asStrings(const toml::value& v, const std::string& key) {
  if (v.is_string()) return {v.as_string().str};
  if (!v.is_array()) fail(v, "'" + key + "' must be an array of strings, not " + typeName(v));
  std::vector<std::string> out;
  for (const auto& item : v.as_array()) out.push_back(asString(item, key + " item"));
  return out;
}

// Globs as fnmatch reads them, checked (globProblem).
std::vector<std::string> asGlobs(const toml::value& v, const std::string& key) {
  std::vector<std::string> globs = asStrings(v, key);
  for (const std::string& glob : globs)
    if (std::string problem = globProblem(glob); !problem.empty()) fail(v, "'" + key + "': " + problem);
  return globs;
}

const toml::table& asTable(const toml::value& v, const std::string& key) {
  if (!v.is_table()) fail(v, "'" + key + "' must be a table, not " + typeName(v));
  return v.as_table();
}

[[noreturn]] void unknownKey(const toml::value& at, const std::string& key, const std::string& where,
                             const std::set<std::string>& known) {
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  fail(at, "unknown key '" + key + "'" + where + "; known: " + list);
}

std::vector<ReasonLevel> readReasons(const toml::value& v) {
  std::vector<ReasonLevel> out;
  for (const auto& [id, level] : asTable(v, "reasons")) {
    if (level.is_table())  // string.gsub = "off" is the table string with the key gsub
      fail(level, "reasons: a name with a dot must be quoted, as in \"" + id + ".gsub\" = \"off\"");
    std::string text = asString(level, "reasons." + id);
    if (text == "off") {
      out.push_back({id, std::nullopt, position(level)});
    } else if (auto s = parseSeverityName(text)) {
      out.push_back({id, *s, position(level)});
    } else {
      fail(level, "reasons.\"" + id + "\" must be off, error, warning or note, not '" + text + "'");
    }
  }
  return out;
}

ConfigOverride readOverride(const toml::value& v) {
  static const std::set<std::string> known{"files", "reasons"};
  ConfigOverride out;
  for (const auto& [key, value] : asTable(v, "overrides")) {
    if (key == "files") out.files = asGlobs(value, "overrides.files");
    else if (key == "reasons") out.reasons = readReasons(value);
    else unknownKey(value, key, " in [[overrides]]", known);
  }
  if (out.files.empty()) fail(v, "an [[overrides]] entry needs 'files'");
  return out;
}

// `std = "luajit+lua52compat"` (or an array of set names): the sets' aliases.
void readStd(const toml::value& v, LintConfig& c) {
  std::vector<std::string> names;
  for (const auto& item : asStrings(v, "std")) {
    std::string_view rest = item;
    for (;;) {
      std::size_t plus = rest.find('+');
      names.emplace_back(rest.substr(0, plus));
      if (plus == std::string_view::npos) break;
      rest.remove_prefix(plus + 1);
    }
  }
  for (const auto& name : names) {
    auto set = standardSet(name);
    if (!set) {
      std::string known;
      for (auto n : standardSetNames()) known += (known.empty() ? "" : ", ") + std::string(n);
      fail(v, "unknown std '" + name + "'; known: " + known);
    }
    for (const auto& [alias, builtin] : *set)
      if (c.aliasPositions.emplace(alias, position(v)).second) c.aliases[alias] = builtin;
  }
}

// `[globals]`: alias = "builtin", e.g. str = "string", fmt = "string.format".
void readGlobals(const toml::value& v, LintConfig& c) {
  if (v.is_array())
    fail(v, "'globals' is a table of builtins under other names (str = \"string\"), not a list: ljcheck needs no "
            "list of the program's own globals");
  for (const auto& [alias, builtin] : asTable(v, "globals")) {
    std::string target = asString(builtin, "globals." + alias);
    if (alias.empty() || target.empty()) fail(builtin, "globals: an alias and its builtin must not be empty");
    c.aliases[alias] = target;
    c.aliasPositions[alias] = position(builtin);
  }
}

std::optional<Severity> readUnusedAllows(const toml::value& v) {
  if (v.is_boolean()) return v.as_boolean() ? std::optional<Severity>(Severity::Blacklist) : std::nullopt;
  std::string text = asString(v, "report-unused-allows");
  if (text == "off") return std::nullopt;
  if (auto s = parseSeverityName(text)) return s;
  fail(v, "'report-unused-allows' must be true, false, off, error, warning or note, not '" + text + "'");
}

// `cpath = "lib/?.so;;"`: templates as LUA_CPATH spells them; a relative
// template is relative to the config's folder, not to where lint runs.
std::string readCPath(const toml::value& v, const std::string& directory) {
  std::string text = asString(v, "cpath"), out;
  std::size_t at = 0;
  for (;;) {
    std::size_t end = text.find(';', at);
    std::string one = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!one.empty() && fs::path(one).is_relative()) one = (fs::path(directory) / one).lexically_normal().string();
    out += one;
    if (end == std::string::npos) return out;
    out += ';';
    at = end + 1;
  }
}

// The settings the command line also takes are checked here, where their
// position is known, not later as if they were flags.
std::string readProfile(const toml::value& v) {
  std::string name = asString(v, "profile");
  if (findProfile(name)) return name;
  std::string known;
  for (const auto& p : builtinProfiles()) known += (known.empty() ? "" : ", ") + p.name;
  fail(v, "unknown recorder profile '" + name + "'; known: " + known);
}

std::string readFailOn(const toml::value& v) {
  std::string text = asString(v, "fail-on");
  if (text == "none" || parseSeverityName(text)) return text;
  fail(v, "'fail-on' must be error (or blacklist), warning (or warn), note (or info) or none, not '" + text + "'");
}

std::string readConfidence(const toml::value& v) {
  std::string text = asString(v, "confidence");
  if (parseConfidence(text)) return text;
  fail(v, "'confidence' must be certain, likely or possible, not '" + text + "'");
}

// Relative to the config's folder.
std::string readRoot(const toml::value& v, const std::string& directory) {
  std::string text = asString(v, "root");
  std::string root = (fs::path(directory) / text).lexically_normal().string();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) fail(v, "'root' = '" + text + "': " + root + " is not a directory");
  return root;
}

LintConfig read(const toml::value& doc, const std::string& path) {
  static const std::set<std::string> known{"profile", "fail-on",   "confidence", "root",
                                           "jobs",    "include",   "exclude",    "reasons",
                                           "overrides", "std",     "globals",    "report-unused-allows",
                                           "cpath",   "c-modules"};
  LintConfig c;
  c.path = path;
  c.directory = fs::absolute(path).lexically_normal().parent_path().string();
  for (const auto& [key, value] : asTable(doc, "the document")) {
    if (key == "profile") c.profile = readProfile(value);
    else if (key == "fail-on") c.failOn = readFailOn(value);
    else if (key == "confidence") c.confidence = readConfidence(value);
    else if (key == "root") c.root = readRoot(value, c.directory);
    else if (key == "jobs") {
      if (!value.is_integer() || value.as_integer() < 1 || value.as_integer() > 1024)
        fail(value, "'jobs' must be an integer from 1 to 1024");
      c.jobs = static_cast<unsigned>(value.as_integer());
    } else if (key == "include") c.include = asGlobs(value, key);
    else if (key == "exclude") c.exclude = asGlobs(value, key);
    else if (key == "reasons") c.reasons = readReasons(value);
    else if (key == "overrides") {
      if (!value.is_array()) fail(value, "'overrides' must be an array of tables ([[overrides]])");
      for (const auto& item : value.as_array()) c.overrides.push_back(readOverride(item));
    } else if (key == "report-unused-allows") c.reportUnusedAllows = readUnusedAllows(value);
    else if (key == "cpath") c.cpath = readCPath(value, c.directory);
    else if (key == "c-modules") {
      c.cModules = asStrings(value, key);
      for (const auto& m : c.cModules)
        if (m.empty()) fail(value, "'c-modules' names modules as require spells them; an empty name is none");
    }
    else if (key != "std" && key != "globals") unknownKey(value, key, "", known);
  }
  // `globals` after `std`, whatever their order in the file: an alias of
  // one's own wins over a set's.
  if (doc.contains("std")) readStd(doc.at("std"), c);
  if (doc.contains("globals")) readGlobals(doc.at("globals"), c);
  return c;
}

// The level a reasonId gets from a list; later entries do not matter: a
// full reasonId wins over its code, the code over the subject.
const ReasonLevel* levelFor(const std::vector<ReasonLevel>& levels, const ReasonId& id) {
  const ReasonLevel *byCode = nullptr, *bySubject = nullptr;
  const std::string full = id.str();
  for (const auto& l : levels) {
    if (l.id == full) return &l;
    if (l.id == id.code()) byCode = &l;
    else if (!id.subject().empty() && l.id == id.subject()) bySubject = &l;
  }
  return byCode ? byCode : bySubject;
}

}  // namespace

namespace {

std::optional<std::string> checkAliases(const LintConfig& config, const RecorderProfile& profile) {
  for (const auto& [alias, builtin] : config.aliases) {
    if (profile.cFunctions.count(builtin) || profile.fastFunction(builtin) || profile.isLibraryTable(builtin)) continue;
    return config.aliasPositions.at(alias) + ": '" + alias + "' = '" + builtin + "': '" + builtin +
           "' is not a builtin of the recorder profile " + profile.name;
  }
  return std::nullopt;
}

std::optional<std::string> checkReasonLevels(const LintConfig& config, const RecorderProfile& profile) {
  auto check = [&](const std::vector<ReasonLevel>& levels, std::string_view table) -> std::optional<std::string> {
    for (const auto& l : levels)
      if (auto unknown = unknownReasonName(l.id, profile))
        return l.position + ": " + std::string(table) + " \"" + l.id + "\": " + unknown->why;
    return std::nullopt;
  };
  if (auto error = check(config.reasons, "[reasons]")) return error;
  for (const auto& o : config.overrides)
    if (auto error = check(o.reasons, "[[overrides]] reasons")) return error;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkNames(const LintConfig& config, const RecorderProfile& profile) {
  if (auto error = checkAliases(config, profile)) return error;
  return checkReasonLevels(config, profile);
}

std::shared_ptr<const CModules> cModulesFor(const std::optional<std::string>& cpathOption, const LintConfig* config) {
  CModuleSearch search;
  const char* envCPath = std::getenv("LUA_CPATH");
  std::optional<std::string> cpath = cpathOption;
  if (!cpath && config) cpath = config->cpath;
  if (!cpath && envCPath) cpath = envCPath;
  search.cpath = expandSearchPath(cpath.value_or(";;"), luajitDefaultCPath());
  const char* envPath = std::getenv("LUA_PATH");
  search.path = expandSearchPath(envPath ? envPath : ";;", luajitDefaultPath());
  if (config) {
    search.declared = config->cModules;
    search.declaredIn = config->path;
  }
  return std::make_shared<const CModules>(std::move(search));
}

std::optional<std::string> findConfig(const std::string& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  dir = dir.lexically_normal();
  if (!dir.has_filename() && dir.has_relative_path()) dir = dir.parent_path();  // "/a/b/" -> "/a/b"
  const fs::path cwd = fs::current_path(ec);
  for (;;) {
    fs::path candidate = dir / kConfigName;
    if (fs::is_regular_file(candidate, ec)) {
      // Named as the user would from here: ".ljcheck.toml", "../.ljcheck.toml".
      fs::path relative = cwd.empty() ? fs::path() : candidate.lexically_relative(cwd);
      return relative.empty() ? candidate.string() : relative.string();
    }
    if (!dir.has_relative_path()) return std::nullopt;
    dir = dir.parent_path();
  }
}

ConfigText readConfigText(const std::string& path) {
  // A directory or a FIFO would read as empty or never end.
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) return {{}, path + ": the config is not a regular file"};
  std::ifstream file(path, std::ios::binary);
  if (!file) return {{}, path + ": cannot read the config file: " + systemErrorText(errno)};
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) return {{}, path + ": cannot read the config file: " + systemErrorText(errno)};
  return {std::move(text), {}};
}

std::variant<LintConfig, std::string> loadConfig(const std::string& path) {
  ConfigText read = readConfigText(path);
  if (!read.error.empty()) return read.error;
  return parseConfig(read.text, path);
}

std::variant<LintConfig, std::string> parseConfig(std::string_view text, const std::string& name) {
  // toml11 fails unsafely on these three: check them first (toml_guards.h).
  if (auto bad = firstInvalidUtf8(text))
    return name + ":" + std::to_string(bad->line) + ":" + std::to_string(bad->column) +
           ": not UTF-8 (a TOML file must be UTF-8 text)";
  if (auto deep = tooDeeplyNested(text, kMaxTomlNesting))
    return name + ":" + std::to_string(deep->line) + ":" + std::to_string(deep->column) +
           ": arrays and inline tables nested more than " + std::to_string(kMaxTomlNesting) + " deep";
  if (auto binary = binaryIntegerTooLong(text, kMaxTomlBinaryDigits))
    return name + ":" + std::to_string(binary->line) + ":" + std::to_string(binary->column) +
           ": a binary integer of more than " + std::to_string(kMaxTomlBinaryDigits) +
           " digits (the TOML reader cannot take it)";
  try {
    std::istringstream in{std::string(text)};
    return read(toml::parse(in, name), name);
  } catch (const ConfigError& e) {
    return e.message;
  } catch (const toml::exception& e) {
    // toml11's own text spans several lines, its position at the caret.
    const auto& loc = e.location();
    return tomlSyntaxError(e.what(), name, static_cast<int>(loc.line()), static_cast<int>(loc.column()));
  } catch (const std::exception& e) {
    return name + ": " + e.what();
  }
}

void applyReasonLevels(LintReport& report, const LintConfig& config, const std::string& root) {
  if (config.reasons.empty() && config.overrides.empty()) return;
  for (auto& file : report.files) {
    // A site turned off takes the "masked by" notes it causes with it, as a
    // suppression comment does.
    std::set<std::tuple<std::string, int, std::string>> off;
    std::string absolute = (fs::path(root) / file.path).string();
    std::vector<const ConfigOverride*> overrides;
    for (const auto& o : config.overrides)
      if (pathMatchesGlobs(o.files, config.directory, absolute)) overrides.push_back(&o);
    std::vector<Prediction> kept;
    for (auto& p : file.predictions) {
      const ReasonLevel* level = nullptr;
      for (auto it = overrides.rbegin(); it != overrides.rend() && !level; ++it) level = levelFor((*it)->reasons, p.reasonId);
      if (!level) level = levelFor(config.reasons, p.reasonId);
      if (level && !level->level) {
        off.emplace(p.path, p.line, p.reasonId.str());
        continue;
      }
      if (level) p.severity = *level->level;
      kept.push_back(std::move(p));
    }
    kept.erase(std::remove_if(kept.begin(), kept.end(),
                              [&](const Prediction& p) {
                                return p.maskedBy &&
                                       off.count({p.maskedBy->path, p.maskedBy->line, p.maskedBy->reasonId.str()});
                              }),
               kept.end());
    file.predictions = std::move(kept);
  }
}

void addConfigGlobs(InputFilter& filter, const LintConfig& config) {
  for (const auto& g : config.exclude) filter.exclude.push_back((std::filesystem::path(config.directory) / g).string());
  for (const auto& g : config.include) filter.include.push_back((std::filesystem::path(config.directory) / g).string());
}

void keepDirectiveProblems(LintReport& report, std::optional<Severity> unusedAllows) {
  for (auto& file : report.files) {
    auto& d = file.directives;
    d.erase(std::remove_if(d.begin(), d.end(),
                           [&](const DirectiveProblem& p) {
                             return p.kind == DirectiveProblem::Kind::UnusedAllow && !unusedAllows;
                           }),
            d.end());
    for (auto& p : d)
      if (p.kind == DirectiveProblem::Kind::UnusedAllow) p.severity = *unusedAllows;
  }
}

}  // namespace ljcheck::cli
