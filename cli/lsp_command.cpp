// `ljcheck lsp`: the language server over stdio (lsp/, docs/editors.md).
// Settings come from the options, else from .ljcheck.toml as for lint.
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

// The config in effect, as lint finds it. A bad file is reported on stderr
// (the editor's server log) and the server runs with the defaults.
std::optional<LintConfig> readConfig(const LspOptions& o) {
  if (o.noConfig) return std::nullopt;
  std::optional<std::string> path = o.config.empty() ? findConfig(".") : std::optional<std::string>(o.config);
  if (!path) return std::nullopt;
  auto loaded = loadConfig(*path);
  if (auto* error = std::get_if<std::string>(&loaded)) {
    std::cerr << "ljcheck lsp: " << *error << " (running without it)\n";
    return std::nullopt;
  }
  return std::get<LintConfig>(std::move(loaded));
}

int runLsp(LspOptions o) {
  std::optional<LintConfig> config = readConfig(o);
  if (config && o.profile.empty() && config->profile) o.profile = *config->profile;
  if (config && o.confidence.empty() && config->confidence) o.confidence = *config->confidence;
  const RecorderProfile* profile = o.profile.empty() ? &defaultProfile() : findProfile(o.profile);
  if (!profile) {
    std::cerr << "ljcheck lsp: unknown recorder profile '" << o.profile << "'; known:";
    for (const auto& p : builtinProfiles()) std::cerr << ' ' << p.name;
    std::cerr << "\n";
    return kUsage;
  }
  auto confidence = parseConfidence(o.confidence.empty() ? "likely" : o.confidence);
  if (!confidence) {
    std::cerr << "ljcheck lsp: --confidence must be certain, likely or possible\n";
    return kUsage;
  }
  LanguageServerOptions options;
  options.profile = profile;
  options.minConfidence = *confidence;
  if (config) {
    if (auto error = checkNames(*config, *profile)) {
      std::cerr << "ljcheck lsp: " << *error << "\n";
      return kUsage;
    }
    options.aliases = config->aliases;
  }
  options.cModules = cModulesFor(std::nullopt, config ? &*config : nullptr);
  options.docsUrl = docsBase(o.docsUrl);
  options.adjust = [config](FileResult& result, const std::string& root) {
    LintReport report;
    report.files.push_back(std::move(result));
    if (config) applyReasonLevels(report, *config, root);
    keepDirectiveProblems(report, config ? config->reportUnusedAllows : std::nullopt);
    result = std::move(report.files.front());
  };
  if (config) addConfigGlobs(options.projectFilter, *config);
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
