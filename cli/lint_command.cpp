// `ljcheck lint`: predicts trace aborts and splits for Lua files.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "commands.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/lint_report.h"
#include "ljcheck/project_path.h"

namespace ljcheck::cli {
namespace {

struct LintOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string profile;
  std::string root;
  std::string failOn = "warn";
  std::string confidence = "likely";
  bool brief = false;
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

// A path relative to the project root when it lies inside it, as analyzeFiles
// shows the files it analyzed; so an input that could not be used reads the same.
int runLint(const LintOptions& o) {
  // Reports run to megabytes: let std::cout buffer instead of passing every
  // write through to C stdio. Nothing else in lint writes to stdout.
  std::ios::sync_with_stdio(false);
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
  auto minConfidence = parseConfidence(o.confidence);
  if (!minConfidence) {
    std::cerr << "ljcheck lint: --confidence must be certain, likely or possible\n";
    return kUsage;
  }
  if (!o.root.empty() && !std::filesystem::is_directory(o.root)) {
    std::cerr << "ljcheck lint: --root " << o.root << ": not a directory\n";
    return kUsage;
  }
  InputList inputs = collectInputs(o.paths);
  AnalyzeOptions options;
  options.profile = profile;
  options.root = o.root;
  options.minConfidence = *minConfidence;
  options.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  options.progress = progressBar(!o.noProgress && o.format == "text");
  const ProjectRoot root(o.root);
  LintReport report;
  report.profile = profile;
  report.root = root.path();
  report.files = analyzeFiles(inputs.files, options);
  // A path that could not be used is reported in its place among the files.
  for (auto e : inputs.errors) {
    e.path = root.show(e.path);
    report.files.push_back(FileResult{e.path, {}, {e}});
  }
  std::stable_sort(report.files.begin(), report.files.end(),
                   [](const FileResult& a, const FileResult& b) { return a.path < b.path; });

  if (o.format == "json") writeJson(std::cout, report, options.jobs);
  else if (o.format == "csv") writeCsv(std::cout, report);
  else writeText(std::cout, report, isatty(STDOUT_FILENO), !o.brief);
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "ljcheck lint: cannot write the report to standard output\n";
    return kInputError;
  }

  // CSV has no place for file errors and JSON goes to tools: say them on
  // stderr too, as text lines.
  if (o.format != "text") {
    LintReport errorsOnly;
    for (const auto& f : report.files)
      if (!f.errors.empty()) errorsOnly.files.push_back(FileResult{f.path, {}, f.errors});
    writeText(std::cerr, errorsOnly, false, false);
  }

  if (report.errorCount() > 0) return kInputError;
  // A masked site is not a finding of its own: its masking site counts.
  if (threshold && report.hasFindingAtLeast(*threshold)) return kFindings;
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
  cmd->add_option("--confidence", o->confidence,
                  "Lowest confidence reported: certain, likely (default) or possible");
  cmd->add_flag("--brief", o->brief, "Text: one line per prediction, without the confidence and reasoning note");
  cmd->add_flag("--no-progress", o->noProgress, "Never show a progress bar");
  return [o] { return runLint(*o); };
}

}  // namespace ljcheck::cli
