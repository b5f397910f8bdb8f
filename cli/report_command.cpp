// `ljcheck report`: the verification as one self-contained HTML page or as
// Markdown for a pull-request comment, with costs, source excerpts, the
// catalog's advice, a flame graph of the sampled stacks and the zones.
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "ljcheck/verification_report.h"

namespace ljcheck::cli {
namespace {

struct ReportCommandOptions {
  std::string lintJson;
  std::vector<std::string> runtimeJson;
  std::string stacks;
  std::string out;
  std::string format = "html";
  std::size_t maxBytes = 65000;
  bool allowProfileMismatch = false;
  bool includeBenign = false;
};

int runReport(const ReportCommandOptions& o) {
  SiteReport lint;
  std::vector<SiteReport> runs;
  SampledStacks stacks;
  try {
    lint = readReport(o.lintJson, "lint");
    std::vector<std::string> notes;
    runs = readRuntimeReports(o.runtimeJson, notes);
    for (const auto& note : notes) std::cerr << "ljcheck report: warning: " << note << "\n";
    if (!o.stacks.empty()) stacks = readSampledStacks(o.stacks);
  } catch (const ReportError& e) {
    std::cerr << "ljcheck report: " << e.what() << "\n";
    return kInputError;
  }
  Verification v;
  try {
    v = verify(lint, runs, {o.allowProfileMismatch, o.includeBenign});
  } catch (const ReportError& e) {
    std::cerr << "ljcheck report: " << e.what() << "\n";
    return kUsage;
  }
  VerificationReport report = buildVerificationReport(std::move(v), runs, std::move(stacks));
  for (const auto& note : report.notes) std::cerr << "ljcheck report: note: " << note << "\n";
  std::ostringstream text;
  if (o.format == "md") writeReportMarkdown(text, report, o.maxBytes);
  else writeReportHtml(text, report);
  if (o.out.empty() || o.out == "-") {
    std::cout << text.str();
    return kClean;
  }
  std::ofstream file(o.out, std::ios::binary);
  if (!(file << text.str()) || !file.flush()) {
    std::cerr << "ljcheck report: " << o.out << ": cannot write the report\n";
    return kInputError;
  }
  return kClean;
}

}  // namespace

Runner addReportCommand(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  auto* cmd = app.add_subcommand("report", "Write the verification report: self-contained HTML or Markdown");
  cmd->add_option("--static", o->lintJson, "Lint JSON (ljcheck lint --format json)")->required();
  cmd->add_option("--runtime", o->runtimeJson, "Runtime JSON (ljcheck run --json), one or more")->required();
  cmd->add_option("--stacks", o->stacks,
                  "Sampled stacks for the flame graph: ljcheck run --sample (collapsed) or --speedscope (JSON)");
  cmd->add_option("--out,-o", o->out, "Write the report to this file (default: standard output)");
  cmd->add_option("--format", o->format, "html (one self-contained page) or md (a pull-request comment)")
      ->check(CLI::IsMember({"html", "md"}));
  cmd->add_option("--max-bytes", o->maxBytes, "Markdown size limit; sites past it are cut, and the text says so")
      ->check(CLI::Range(std::size_t{1000}, std::size_t{100000000}));
  cmd->add_flag("--allow-profile-mismatch", o->allowProfileMismatch,
                "Join reports written for different recorder profiles");
  cmd->add_flag("--include-benign", o->includeBenign, "Count stop-class observations no prediction names as missed");
  return [o] { return runReport(*o); };
}

}  // namespace ljcheck::cli
