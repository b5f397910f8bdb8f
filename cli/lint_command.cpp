// `ljcheck lint`: predicts trace aborts and splits for Lua files.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "commands.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/lint_report.h"

namespace ljcheck::cli {
namespace {

struct LintOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string profile;
  std::string root;
  std::string failOn = "warn";
  unsigned jobs = 0;
  bool noProgress = false;
};

// A progress line on a terminal for long runs; nothing when stderr is not one.
std::function<void(std::size_t, std::size_t)> progressBar(bool enabled) {
  if (!enabled || !isatty(STDERR_FILENO)) return nullptr;
  auto mutex = std::make_shared<std::mutex>();
  return [mutex](std::size_t done, std::size_t total) {
    if (total < 20) return;
    std::lock_guard<std::mutex> lock(*mutex);
    std::size_t width = 30, filled = width * done / total;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << done << '/'
              << total << (done == total ? "\r\x1b[K" : "") << std::flush;
  };
}

int runLint(const LintOptions& o) {
  const RecorderProfile* profile = o.profile.empty() ? &defaultProfile() : findProfile(o.profile);
  if (!profile) {
    std::cerr << "ljcheck lint: unknown recorder profile '" << o.profile << "'; known:";
    for (const auto& p : builtinProfiles()) std::cerr << ' ' << p.name;
    std::cerr << "\n";
    return kUsage;
  }
  auto threshold = parseSeverity(o.failOn);
  if (!threshold && o.failOn != "none") {
    std::cerr << "ljcheck lint: --fail-on must be info, warn, blacklist or none\n";
    return kUsage;
  }
  InputList inputs = collectInputs(o.paths);
  AnalyzeOptions options;
  options.profile = profile;
  options.root = o.root;
  options.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  options.progress = progressBar(!o.noProgress && o.format == "text");
  LintReport report;
  report.profile = profile;
  report.files = analyzeFiles(inputs.files, options);
  if (!inputs.errors.empty()) report.files.insert(report.files.begin(), FileResult{"", {}, inputs.errors});

  if (o.format == "json") writeJson(std::cout, report);
  else if (o.format == "csv") writeCsv(std::cout, report);
  else writeText(std::cout, report, isatty(STDOUT_FILENO));
  std::cout.flush();

  // File errors go to stderr too, so they are seen whatever the format.
  if (o.format != "text")
    for (const auto& f : report.files)
      for (const auto& e : f.errors) std::cerr << "ljcheck lint: " << e.path << ": " << e.message << "\n";

  if (report.errorCount() > 0) return kInputError;
  if (threshold)
    for (const auto& f : report.files)
      for (const auto& p : f.predictions)
        if (p.severity >= *threshold) return kFindings;
  return kClean;
}

}  // namespace

Runner addLintCommand(CLI::App& app) {
  auto o = std::make_shared<LintOptions>();
  auto* cmd = app.add_subcommand("lint", "Predict trace aborts and splits in Lua files");
  cmd->add_option("paths", o->paths, "Lua files and directories (searched recursively for *.lua)")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json", "csv"}));
  cmd->add_option("--profile", o->profile, "Recorder profile id or short name (default: the embedded LuaJIT)");
  cmd->add_option("-j,--jobs", o->jobs, "Parallel jobs (default: number of cores)");
  cmd->add_option("--root", o->root, "Project root; paths are reported relative to it (default: .)");
  cmd->add_option("--fail-on", o->failOn, "Lowest severity that makes the exit status 1: info, warn, blacklist, none");
  cmd->add_flag("--no-progress", o->noProgress, "Never show a progress bar");
  return [o] { return runLint(*o); };
}

}  // namespace ljcheck::cli
