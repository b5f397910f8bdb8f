// `ljcheck lsp`: the language server over stdio (lsp/, docs/editors.md).
// Settings come from the options, else from the .ljcheck.toml lint would
// find from the client's workspace root, read again when it changes.
#include <filesystem>
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <memory>

#include "commands.h"
#include "config.h"
#include "ljcheck/lsp_server.h"

namespace ljcheck::cli {
namespace {

struct LspOptions {
  std::string profile;
  std::string confidence;
  std::string docsUrl;
  std::string config;  // --config FILE
  bool noConfig = false;
};

// The config `settingsFor` last read, and what it made of it: a server asks
// again after every open, save and change on disk, and mostly finds the
// same text.
struct SettingsCache {
  std::string file, text;
  std::optional<WorkspaceSettings> settings;
};

// The settings without a config: the command line's, else the defaults.
WorkspaceSettings withoutConfig(const RecorderProfile& profile, Confidence confidence) {
  WorkspaceSettings s;
  s.profile = &profile;
  s.minConfidence = confidence;
  s.cModules = cModulesFor(std::nullopt, nullptr);
  s.adjust = [](FileResult& result, const std::string&) {
    LintReport report;
    report.files.push_back(std::move(result));
    keepDirectiveProblems(report, std::nullopt);
    result = std::move(report.files.front());
  };
  return s;
}

// The settings under `config`; a problem when a name in it means nothing
// to the profile chosen.
WorkspaceSettings withConfig(const LspOptions& o, const LintConfig& config, const RecorderProfile& flagProfile,
                             std::optional<Confidence> flagConfidence) {
  const RecorderProfile* profile = &flagProfile;
  if (o.profile.empty() && config.profile) profile = findProfile(*config.profile);  // checked when read
  Confidence confidence = flagConfidence.value_or(
      config.confidence ? parseConfidence(*config.confidence).value_or(Confidence::Likely) : Confidence::Likely);
  if (auto error = checkNames(config, *profile)) {
    WorkspaceSettings without = withoutConfig(flagProfile, flagConfidence.value_or(Confidence::Likely));
    without.problem = *error + " (running without the config)";
    return without;
  }
  WorkspaceSettings s = withoutConfig(*profile, confidence);
  s.aliases = config.aliases;
  s.cModules = cModulesFor(std::nullopt, &config);
  s.adjust = [config](FileResult& result, const std::string& root) {
    LintReport report;
    report.files.push_back(std::move(result));
    applyReasonLevels(report, config, root);
    keepDirectiveProblems(report, config.reportUnusedAllows);
    result = std::move(report.files.front());
  };
  addConfigGlobs(s.projectFilter, config);
  return s;
}

// The settings for a workspace folder, as lint finds them from there: the
// nearest .ljcheck.toml from the folder upward (or --config's file, or
// none with --no-config) under the command line's options. A config that
// cannot be used is the answer's `problem` (shown to the user; the
// server's log too) and the server runs without it.
WorkspaceSettings settingsFor(const LspOptions& o, const RecorderProfile& flagProfile,
                              std::optional<Confidence> flagConfidence, const std::string& folder,
                              SettingsCache& cache) {
  std::optional<std::string> path;
  if (!o.noConfig) path = o.config.empty() ? findConfig(folder) : std::optional<std::string>(o.config);
  if (!path) {
    cache = {};
    return withoutConfig(flagProfile, flagConfidence.value_or(Confidence::Likely));
  }
  std::error_code ec;
  std::string file = std::filesystem::absolute(*path, ec).lexically_normal().string();
  if (ec) file = *path;
  ConfigText read = readConfigText(file);
  if (cache.settings && cache.file == file && cache.text == read.text && read.error.empty()) return *cache.settings;
  WorkspaceSettings s;
  if (!read.error.empty()) {
    s = withoutConfig(flagProfile, flagConfidence.value_or(Confidence::Likely));
    s.problem = read.error + " (running without the config)";
  } else {
    auto parsed = parseConfig(read.text, file);
    if (auto* error = std::get_if<std::string>(&parsed)) {
      s = withoutConfig(flagProfile, flagConfidence.value_or(Confidence::Likely));
      s.problem = *error + " (running without the config)";
    } else {
      s = withConfig(o, std::get<LintConfig>(parsed), flagProfile, flagConfidence);
    }
  }
  s.configFile = file;
  s.configText = read.error.empty() ? read.text : read.error;
  if (!s.problem.empty()) std::cerr << "ljcheck lsp: " << s.problem << "\n";
  cache = {file, s.configText, s};
  return s;
}

int runLsp(LspOptions o) {
  // The command line's options are checked now; the config's when the
  // client names its workspace (initialize).
  const RecorderProfile* profile = o.profile.empty() ? &defaultProfile() : findProfile(o.profile);
  if (!profile) {
    std::cerr << "ljcheck lsp: unknown recorder profile '" << o.profile << "'; known:";
    for (const auto& p : builtinProfiles()) std::cerr << ' ' << p.name;
    std::cerr << "\n";
    return kUsage;
  }
  std::optional<Confidence> confidence;
  if (!o.confidence.empty()) {
    confidence = parseConfidence(o.confidence);
    if (!confidence) {
      std::cerr << "ljcheck lsp: --confidence must be certain, likely or possible, not '" << o.confidence << "'\n";
      return kUsage;
    }
  }
  LanguageServerOptions options;
  static_cast<WorkspaceSettings&>(options) = withoutConfig(*profile, confidence.value_or(Confidence::Likely));
  options.docsUrl = docsBase(o.docsUrl);
  auto cache = std::make_shared<SettingsCache>();
  options.configure = [o, profile, confidence, cache](const std::string& folder) {
    return settingsFor(o, *profile, confidence, folder, *cache);
  };
  std::ios::sync_with_stdio(false);
#ifdef __GLIBC__
  // A long-lived server allocates and frees the same big buffers (a
  // document's text, its dump, its value map, its diagnostics as JSON text)
  // on every edit. glibc's defaults hand the memory back to the kernel after
  // each analysis (mapped blocks unmapped, the heap's top trimmed), and the
  // next analysis faults every page of it in again: on this machine that
  // was most of a re-lint's time (BENCHMARKS.md, "page faults"). Keep it:
  // the resident size settles at the largest analysis so far.
  constexpr int kMiB = 1024 * 1024;
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);  // the most glibc takes on 64-bit
  mallopt(M_TRIM_THRESHOLD, 128 * kMiB);
  mallopt(M_TOP_PAD, 16 * kMiB);
#endif
  return serveLanguageServer(std::cin, std::cout, options);
}

}  // namespace

Runner addLspCommand(CLI::App& app) {
  auto o = std::make_shared<LspOptions>();
  auto* cmd = app.add_subcommand("lsp", "Language server over stdio: diagnostics, hover, suppression quickfixes");
  cmd->add_option("--profile", o->profile, "Recorder profile id or short name (default: the embedded LuaJIT)");
  cmd->add_option("--confidence", o->confidence, "Lowest confidence shown: certain, likely (default) or possible");
  cmd->add_option("--docs-url", o->docsUrl, "Base URI of the reason pages (each diagnostic's codeDescription.href)");
  cmd->add_option("--config", o->config, "Read settings from this file instead of the nearest .ljcheck.toml");
  cmd->add_flag("--no-config", o->noConfig, "Ignore .ljcheck.toml");
  return [o] { return runLsp(*o); };
}

}  // namespace ljcheck::cli
