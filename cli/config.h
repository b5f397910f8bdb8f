// `.ljcheck.toml`: the lint settings a project keeps in its tree. Found
// from the working directory upward, or named with --config; command-line
// flags override it. Every error names file:line:column.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ljcheck/analyzer.h"
#include "ljcheck/builtin_aliases.h"
#include "ljcheck/c_modules.h"
#include "ljcheck/lint_report.h"

namespace ljcheck::cli {

inline constexpr std::string_view kConfigName = ".ljcheck.toml";

// A level for the predictions of one reasonId ("STITCH:print"), code
// ("NYIBC") or subject ("FNEW"): a severity, or nullopt for "off".
struct ReasonLevel {
  std::string id;
  std::optional<Severity> level;
  std::string position;  // file:line:column of the level in the config
};

// `[[overrides]]`: reason levels for the files its globs match.
struct ConfigOverride {
  std::vector<std::string> files;
  std::vector<ReasonLevel> reasons;
};

struct LintConfig {
  std::string path;       // the file read
  std::string directory;  // globs are relative to it
  std::optional<std::string> profile, failOn, confidence, root;
  std::optional<unsigned> jobs;
  std::vector<std::string> include, exclude;
  std::vector<ReasonLevel> reasons;
  std::vector<ConfigOverride> overrides;
  // `std` (named standard sets, "luajit+lua52compat") and `globals` (alias
  // = "builtin"), merged; `globals` wins over a set for the same alias.
  BuiltinAliases aliases;
  std::map<std::string, std::string> aliasPositions;  // alias -> file:line:column of its value
  // `report-unused-allows`: the severity unused allow comments are reported
  // with; nullopt: not reported.
  std::optional<Severity> reportUnusedAllows;
  // `cpath`: package.cpath templates, relative ones made absolute against
  // the config's folder; `c-modules`: modules to take for C modules even
  // where lint cannot find them (c_modules.h).
  std::optional<std::string> cpath;
  std::vector<std::string> cModules;
};

// An error "file:line:column: ..." when a name of the config means nothing
// to `profile` (known only once the profile is chosen): an alias of a
// builtin it lacks, or a `[reasons]` entry (top-level or an override's)
// that names no reason, code or subject of the catalog or the profile
// (reason_names.h). Nullopt when all names are known.
std::optional<std::string> checkNames(const LintConfig& config, const RecorderProfile& profile);

// Where require finds C modules: package.cpath from `cpathOption`
// (--cpath), else the config's cpath, else LUA_CPATH, else LuaJIT's
// default; ";;" in any of them stands for the default. The Lua path
// (LUA_PATH or the default) is searched first, as LuaJIT's loaders do. The
// config's `c-modules` are C modules always. `config` may be null.
std::shared_ptr<const CModules> cModulesFor(const std::optional<std::string>& cpathOption, const LintConfig* config);

// The nearest .ljcheck.toml from `start` upward; nullopt when none.
std::optional<std::string> findConfig(const std::string& start);
// A config file's text, or why it cannot be read (`error`, naming the file).
struct ConfigText {
  std::string text;
  std::string error;
};
ConfigText readConfigText(const std::string& path);
// Reads and checks a config file: the config, or one error line
// "file:line:column: what is wrong".
std::variant<LintConfig, std::string> loadConfig(const std::string& path);
// The same for TOML text held in memory; `name` is the file it is reported
// as (and globs are relative to its folder).
std::variant<LintConfig, std::string> parseConfig(std::string_view text, const std::string& name);
// Adds the file's include and exclude globs to `filter`: they are relative
// to the file's folder, so they are matched there, as absolute paths.
void addConfigGlobs(InputFilter& filter, const LintConfig& config);
// Applies the reason levels to `report` (paths relative to `root`): the
// overrides whose files match a prediction's file win over the top-level
// [reasons]; "off" drops the prediction.
void applyReasonLevels(LintReport& report, const LintConfig& config, const std::string& root);
// Keeps the directive problems a run reports: unpaired push/pop markers
// always, as warnings; unused allows only when `unusedAllows` is set, at
// that level.
void keepDirectiveProblems(LintReport& report, std::optional<Severity> unusedAllows);

}  // namespace ljcheck::cli
