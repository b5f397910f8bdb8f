// `ljcheck lint`: predicts trace aborts and splits for Lua files.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>
#include <variant>

#include "baseline.h"
#include "commands.h"
#include "config.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/huge_page_heaps.h"
#include "ljcheck/lint_report.h"
#include "ljcheck/project_path.h"
#include "ljcheck/safe_text.h"
#include "ljcheck/system_error_text.h"

namespace ljcheck::cli {

// Where the reason pages are, for the formats that link them (SARIF's
// helpUri): --docs-url, else LJCHECK_DOCS_URL, else the docs/ folder of the
// tree this binary was built in (build/bin/ljcheck) or installed with
// (share/doc/ljcheck/) as a file URI; "" when none is found. Ends in '/'.
// Whether `text` starts with a URI scheme (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.', then ':').
bool hasScheme(std::string_view text) {
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(text[0])))
    return false;
  for (std::size_t i = 1; i < colon; ++i)
    if (!std::isalnum(static_cast<unsigned char>(text[i])) && text[i] != '+' && text[i] != '-' && text[i] != '.')
      return false;
  return true;
}

std::string docsBase(const std::string& option) {
  std::string url = option;
  if (url.empty())
    if (const char* env = std::getenv("LJCHECK_DOCS_URL")) url = env;
  // A path, not a URI: SARIF's helpUri must be absolute, so it becomes a file: URI.
  if (!url.empty() && !hasScheme(url)) {
    std::error_code ec;
    url = "file://" + percentEncodePath(std::filesystem::absolute(url, ec).lexically_normal().string());
  }
  if (url.empty()) {
    const std::string bin = executableDirectory();
    for (const char* relative : {"/../../docs", "/../share/doc/ljcheck"}) {
      std::error_code ec;
      std::filesystem::path docs = std::filesystem::weakly_canonical(bin + relative, ec);
      if (!bin.empty() && !ec && std::filesystem::is_directory(docs / "reasons", ec)) {
        url = "file://" + percentEncodePath(docs.string());
        break;
      }
    }
  }
  if (!url.empty() && url.back() != '/') url += '/';
  return url;
}

namespace {

struct LintOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string profile;
  std::string root;
  std::string failOn = "warn";
  std::string confidence = "likely";
  std::string color = "auto";
  std::string stdinFilename;
  std::string docsUrl;
  bool brief = false;
  unsigned jobs = 0;
  bool noProgress = false;
  std::string config;  // --config FILE
  bool noConfig = false;
  bool reportUnusedAllows = false;      // --report-unused-allows: as errors
  std::optional<Severity> unusedAllows;  // the level unused allows are reported at; nullopt: not reported
  std::vector<std::string> exclude;
  std::string baseline, writeBaseline;
  std::optional<std::string> cpath;  // --cpath
  // The options a config file may set, to tell whether the command line did.
  CLI::Option *profileOption = nullptr, *failOnOption = nullptr, *confidenceOption = nullptr,
              *rootOption = nullptr, *jobsOption = nullptr;
};

// The config file in effect: --config, else .ljcheck.toml from the working
// directory upward, none with --no-config. Its settings fill the options the
// command line left unset. False after printing an error.
bool applyConfig(LintOptions& o, std::optional<LintConfig>& config) {
  if (o.noConfig) return true;
  std::optional<std::string> path = o.config.empty() ? findConfig(".") : std::optional<std::string>(o.config);
  if (!path) return true;
  auto loaded = loadConfig(*path);
  if (auto* error = std::get_if<std::string>(&loaded)) {
    std::cerr << "ljcheck lint: " << *error << "\n";
    return false;
  }
  config = std::move(std::get<LintConfig>(loaded));
  auto fill = [](CLI::Option* option, std::string& value, const std::optional<std::string>& fromFile) {
    if (fromFile && option->count() == 0) value = *fromFile;
  };
  fill(o.profileOption, o.profile, config->profile);
  fill(o.failOnOption, o.failOn, config->failOn);
  fill(o.confidenceOption, o.confidence, config->confidence);
  fill(o.rootOption, o.root, config->root);
  if (config->jobs && o.jobsOption->count() == 0) o.jobs = *config->jobs;
  if (config->reportUnusedAllows && !o.reportUnusedAllows) o.unusedAllows = config->reportUnusedAllows;
  return true;
}

// The path "-" among the inputs: the source comes from standard input.
constexpr std::string_view kStdinPath = "-";
// How standard input is reported without --stdin-filename.
constexpr std::string_view kStdinShown = "<stdin>";

// A buffer read from standard input and reported under `path`.
struct StdinSource {
  std::string path;
  std::string text;
};

// Reads all of standard input, at most one byte past `limit`: a FileError
// when it cannot be read or is too large.
std::variant<std::string, FileError> readStdin(const std::string& shown, std::uintmax_t limit) {
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= limit) {
    std::size_t n = std::fread(buffer, 1, sizeof buffer, stdin);
    text.append(buffer, n);
    if (n < sizeof buffer) break;
  }
  if (std::ferror(stdin))
    return FileError{FileError::Kind::Io, shown, 0, std::string("cannot read standard input: ") + systemErrorText(errno)};
  if (text.size() > limit)
    return FileError{FileError::Kind::Input, shown, 0,
                     "file too large (over " + std::to_string(limit) + " bytes; the limit is " +
                         std::to_string(limit) + ")"};
  return text;
}

// Standard input, analyzed on its own under the name it was given; `source`
// keeps the buffer for the writers that read the text again.
FileResult analyzeStdin(const std::string& shown, const AnalyzeOptions& options, std::optional<StdinSource>& source) {
  auto text = readStdin(shown, options.maxFileBytes);
  if (auto* error = std::get_if<FileError>(&text)) return FileResult{shown, {}, {*error}, {}};
  source = StdinSource{shown, std::move(std::get<std::string>(text))};
  try {
    return analyzeSource(source->text, shown, *options.profile, options.minConfidence, options.aliases,
                         options.cModules.get());
  } catch (const std::exception& e) {  // as analyzeFiles does: a bug must not take the other files with it
    return FileResult{shown, {}, {{FileError::Kind::Input, shown, 0, std::string("internal error: ") + e.what()}}, {}};
  }
}

// Whether text output is coloured: --color always or never, else on a
// terminal unless NO_COLOR is set to something (no-color.org).
bool useColor(std::string_view mode) {
  if (mode != "auto") return mode == "always";
  const char* noColor = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) && !(noColor && *noColor);
}

// The text of a reported file, for the writers that count UTF-16 columns:
// standard input's buffer, or the file under the root.
SourceLookup sourceLookup(const std::string& root, const std::optional<StdinSource>& in) {
  return [root, &in](const std::string& path) -> std::optional<std::string> {
    if (in && path == in->path) return in->text;
    std::ifstream file(std::filesystem::path(root) / path, std::ios::binary);
    if (!file) return std::nullopt;
    std::ostringstream text;
    text << file.rdbuf();
    return std::move(text).str();
  };
}

// Appends the Markdown summary to $GITHUB_STEP_SUMMARY when the variable is
// set (inside a GitHub Actions step). False when the file cannot be written.
bool appendStepSummary(const LintReport& report) {
  const char* path = std::getenv("GITHUB_STEP_SUMMARY");
  if (!path || !*path) return true;
  std::ofstream summary(path, std::ios::app | std::ios::binary);
  if (summary) writeGithubSummary(summary, report);
  summary.flush();
  if (summary) return true;
  std::cerr << "ljcheck lint: cannot append the step summary to " << path << ": " << systemErrorText(errno) << "\n";
  return false;
}

// A progress line on stderr, only on a terminal and only once the run has
// taken a quarter second (a short run would just flicker). Workers report
// out of order: the counter shown never goes backwards. finish() erases the
// line, so no diagnostic is printed after part of a bar.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}
  std::function<void(std::size_t, std::size_t)> callback() {
    if (!enabled_) return nullptr;
    return [this](std::size_t done, std::size_t total) { update(done, total); };
  }
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (drawn_) std::cerr << "\r\x1b[K" << std::flush;
    drawn_ = false;
    finished_ = true;
  }

 private:
  static constexpr std::chrono::milliseconds kDelay{250};
  void update(std::size_t done, std::size_t total) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (finished_ || done <= shown_ || total == 0) return;
    shown_ = done;
    if (std::chrono::steady_clock::now() - start_ < kDelay) return;
    const std::size_t width = 30, filled = width * done / total;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] " << done << '/' << total
              << std::flush;
    drawn_ = true;
  }
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::size_t shown_ = 0;
  bool drawn_ = false, finished_ = false;
};

// The report outlives the command: freeing its predictions one by one
// (12 k over bench/corpus: 4 ms, 7 ms at -j 2, where the worker threads
// allocated them) on one thread after everything was written is work nobody
// waits for. It stays reachable from here, so leak checkers see no leak;
// LLVM's BuryPointer keeps what clang skips freeing the same way.
LintReport& reportKeptUntilExit() {
  static LintReport* const report = new LintReport;
  *report = LintReport{};  // a second lint in one process starts afresh
  return *report;
}

int runLint(LintOptions& o) {
  // Reports run to megabytes: let std::cout buffer instead of passing every
  // write through to C stdio. Nothing else in lint writes to stdout.
  std::ios::sync_with_stdio(false);
  std::optional<LintConfig> config;
  if (!applyConfig(o, config)) return kUsage;
  std::optional<Baseline> baseline;
  if (!o.baseline.empty()) {
    auto read = readBaseline(o.baseline);
    if (auto* error = std::get_if<std::string>(&read)) {
      std::cerr << "ljcheck lint: --baseline " << *error << "\n";
      return kUsage;
    }
    baseline = std::move(std::get<Baseline>(read));
    if (baseline->recipe == 1)
      std::cerr << "ljcheck lint: --baseline " << o.baseline
                << ": written by an older ljcheck (fingerprint recipe v1); it is matched as such. Write it again "
                   "with --write-baseline: v2 fingerprints stay put when another finding is added to the function\n";
  }
  const RecorderProfile* profile = o.profile.empty() ? &defaultProfile() : findProfile(o.profile);
  if (!profile) {
    std::cerr << "ljcheck lint: unknown recorder profile '" << o.profile << "'; known:";
    for (const auto& p : builtinProfiles()) std::cerr << ' ' << p.name;
    std::cerr << "\n";
    return kUsage;
  }
  if (config)
    if (auto error = checkNames(*config, *profile)) {
      std::cerr << "ljcheck lint: " << *error << "\n";
      return kUsage;
    }
  if (o.reportUnusedAllows) o.unusedAllows = Severity::Blacklist;
  auto threshold = parseSeverityName(o.failOn);
  if (!threshold && o.failOn != "none") {
    std::cerr << "ljcheck lint: --fail-on must be error (or blacklist), warning (or warn), note (or info) or none, "
                 "not '"
              << o.failOn << "'\n";
    return kUsage;
  }
  const LintFormat format = parseLintFormat(o.format).value_or(LintFormat::Text);  // CLI11 checked the name
  auto minConfidence = parseConfidence(o.confidence);
  if (!minConfidence) {
    std::cerr << "ljcheck lint: --confidence must be certain, likely or possible, not '" << o.confidence << "'\n";
    return kUsage;
  }
  if (!o.root.empty() && !std::filesystem::is_directory(o.root)) {
    std::cerr << "ljcheck lint: --root " << o.root << ": not a directory\n";
    return kUsage;
  }
  for (const std::string& glob : o.exclude)
    if (std::string problem = globProblem(glob); !problem.empty()) {
      std::cerr << "ljcheck lint: --exclude: " << problem << "\n";
      return kUsage;
    }
  std::vector<std::string> paths;
  bool readsStdin = false;
  for (const auto& p : o.paths) {
    if (p == kStdinPath) readsStdin = true;
    else paths.push_back(p);
  }
  if (!o.stdinFilename.empty() && !readsStdin) {
    std::cerr << "ljcheck lint: --stdin-filename names standard input: pass '-' among the paths\n";
    return kUsage;
  }
  InputFilter filter;
  filter.exclude = o.exclude;  // command-line globs are relative to the working directory
  if (config) addConfigGlobs(filter, *config);
  InputList inputs = collectInputs(paths, filter);
  // A path that leads to nothing (every file excluded, or no *.lua under a
  // folder) passes, but not silently: a mistyped glob would pass CI forever.
  if (!paths.empty() && inputs.files.empty() && inputs.errors.empty())
    std::cerr << "ljcheck lint: warning: no Lua files to lint under the paths given (excluded by --exclude or the "
                 "config's exclude, or none matches include)\n";
  // A run over much source fills tens of MiB of fresh heap once: fewer,
  // larger pages when asked for (huge_page_heaps.h). A few files would pay
  // more for the worker thread and the 2 MiB pages than they save.
  if (hugePageHeapsRequested() &&
      std::accumulate(inputs.sizes.begin(), inputs.sizes.end(), std::uintmax_t{0}) >= kHugePageHeapsFrom)
    useHugePageHeaps();
  AnalyzeOptions options;
  options.profile = profile;
  options.root = o.root;
  options.minConfidence = *minConfidence;
  if (config) options.aliases = config->aliases;
  options.cModules = cModulesFor(o.cpath, config ? &*config : nullptr);
  options.jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  ProgressBar progress(!o.noProgress && format == LintFormat::Text);
  options.progress = progress.callback();
  const ProjectRoot root(o.root);
  LintReport& report = reportKeptUntilExit();
  report.profile = profile;
  report.root = root.path();
  report.toolVersion = LJCHECK_VERSION;
  report.docsUrl = docsBase(o.docsUrl);
  report.files = analyzeFiles(inputs.files, options, inputs.sizes);
  // A path that could not be used is reported in its place among the files.
  for (auto e : inputs.errors) {
    e.path = root.show(e.path);
    report.files.push_back(FileResult{e.path, {}, {e}, {}});
  }
  std::optional<StdinSource> stdinSource;
  // Standard input under a name the excludes take is left out as that file
  // would be, as ESLint does for an ignored --stdin-filename.
  std::error_code cwdError;
  const bool stdinExcluded =
      readsStdin && !o.stdinFilename.empty() &&
      pathMatchesGlobs(filter.exclude, std::filesystem::current_path(cwdError).string(),
                       std::filesystem::absolute(o.stdinFilename, cwdError).lexically_normal().string());
  if (stdinExcluded)
    std::cerr << "ljcheck lint: warning: standard input, as " << o.stdinFilename
              << ", is excluded (--exclude or the config's exclude): not linted\n";
  if (readsStdin && !stdinExcluded) {
    std::string shown = o.stdinFilename.empty() ? std::string(kStdinShown) : root.show(o.stdinFilename);
    report.files.push_back(analyzeStdin(shown, options, stdinSource));
  }
  progress.finish();
  std::stable_sort(report.files.begin(), report.files.end(),
                   [](const FileResult& a, const FileResult& b) { return a.path < b.path; });
  if (config) applyReasonLevels(report, *config, report.root);
  keepDirectiveProblems(report, o.unusedAllows);
  if (!o.writeBaseline.empty()) {
    if (auto error = writeBaseline(o.writeBaseline, report)) {
      std::cerr << "ljcheck lint: --write-baseline " << *error << "\n";
      return kInputError;
    }
    std::cerr << "ljcheck lint: wrote " << report.predictionCount() << " findings to the baseline "
              << o.writeBaseline << "\n";
  }
  if (baseline) {
    BaselineOutcome outcome = applyBaseline(report, *baseline);
    std::cerr << "ljcheck lint: baseline " << o.baseline << ": " << outcome.baselined << " findings baselined, "
              << outcome.stale << " baseline entries no longer occur\n";
  }

  bool summaryWritten = true;
  switch (format) {
    case LintFormat::Text: writeText(std::cout, report, useColor(o.color), !o.brief); break;
    case LintFormat::Json: writeJson(std::cout, report, options.jobs); break;
    case LintFormat::Csv: writeCsv(std::cout, report); break;
    case LintFormat::Sarif: writeSarif(std::cout, report, sourceLookup(report.root, stdinSource)); break;
    case LintFormat::Junit: writeJunit(std::cout, report, threshold); break;
    case LintFormat::Github:
      writeGithubAnnotations(std::cout, report, sourceLookup(report.root, stdinSource));
      summaryWritten = appendStepSummary(report);
      break;
  }
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "ljcheck lint: cannot write the report to standard output\n";
    return kInputError;
  }
  if (!summaryWritten) return kInputError;

  // CSV has no place for file errors and the other formats go to tools: say
  // them on stderr too, as text lines. CSV, a table of predictions, has no
  // place for directive problems either: they go to stderr with the errors.
  if (format != LintFormat::Text) {
    LintReport errorsOnly;
    for (const auto& f : report.files) {
      bool withDirectives = format == LintFormat::Csv && !f.directives.empty();
      if (f.errors.empty() && !withDirectives) continue;
      FileResult& shown = errorsOnly.files.emplace_back();
      shown.path = f.path;
      shown.errors = f.errors;
      if (withDirectives) shown.directives = f.directives;
    }
    writeText(std::cerr, errorsOnly, false, false);
  }

  if (report.errorCount() > 0) return kInputError;
  // Writing a baseline accepts today's findings: they do not fail the run
  // that recorded them (the documented one-time step goes on in a chain).
  if (!o.writeBaseline.empty() && !baseline) return kClean;
  // A masked site is not a finding of its own: its masking site counts.
  if (threshold && report.hasFindingAtLeast(*threshold)) return kFindings;
  return kClean;
}

}  // namespace

Runner addLintCommand(CLI::App& app) {
  auto o = std::make_shared<LintOptions>();
  auto* cmd = app.add_subcommand("lint", "Predict trace aborts and splits in Lua files");
  cmd->add_option("paths", o->paths, "Lua files and directories (searched recursively for *.lua); - reads standard input")
      ->required();
  std::vector<std::string> formats;
  for (LintFormat f : kLintFormats) formats.emplace_back(toString(f));
  cmd->add_option("--format", o->format, "Output format: text (default), json, csv, sarif, github, junit")
      ->check(CLI::IsMember(formats));
  o->profileOption = cmd->add_option("--profile", o->profile, "Recorder profile id or short name (default: the embedded LuaJIT)");
  o->jobsOption = cmd->add_option("-j,--jobs", o->jobs, "Parallel jobs (default, or 0: the number of cores)");
  o->rootOption = cmd->add_option("--root", o->root, "Project root; paths are reported relative to it (default: .)");
  o->failOnOption = cmd->add_option("--fail-on", o->failOn,
                  "Lowest severity that makes the exit status 1: error (blacklist), warning (warn, the default), "
                  "note (info), or none");
  o->confidenceOption = cmd->add_option("--confidence", o->confidence,
                  "Lowest confidence reported: certain, likely (default) or possible");
  cmd->add_option("--color", o->color, "Colour text output: auto (default: on a terminal, unless NO_COLOR is set), "
                                       "always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--stdin-filename", o->stdinFilename,
                  "The path standard input ('-' among the paths) is reported under");
  cmd->add_option("--docs-url", o->docsUrl,
                  "SARIF: base URI of ljcheck's docs/ folder, for links to the reason pages (default: "
                  "LJCHECK_DOCS_URL, else this installation's docs as a file URI)");
  cmd->add_flag("--brief", o->brief, "Text: one line per prediction, without the confidence and reasoning note");
  cmd->add_flag("--no-progress", o->noProgress, "Never show a progress bar");
  cmd->add_option("--cpath", o->cpath,
                  "package.cpath templates where require finds C modules (default: the config's cpath, else "
                  "LUA_CPATH, else LuaJIT's default; ;; stands for the default)");
  cmd->add_option("--config", o->config, "Read settings from this file instead of the nearest .ljcheck.toml");
  cmd->add_flag("--no-config", o->noConfig, "Ignore .ljcheck.toml");
  cmd->add_flag("--report-unused-allows", o->reportUnusedAllows,
                "Report allow comments that suppress nothing, as errors (exit status 1 unless --fail-on none)");
  cmd->add_option("--exclude", o->exclude,
                  "Leave out files and folders matching this glob (repeatable; relative to the working directory)")
      ->allow_extra_args(false);
  cmd->add_option("--baseline", o->baseline,
                  "Report only findings not recorded in this baseline file; the exit status counts them alone");
  cmd->add_option("--write-baseline", o->writeBaseline,
                  "Record today's findings in this baseline file (entries no longer found are dropped)");
  return [o] { return runLint(*o); };
}

}  // namespace ljcheck::cli
