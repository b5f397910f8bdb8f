// `ljcheck verify`: joins lint predictions with runtime observations.
#include <iostream>

#include "commands.h"
#include "ljcheck/verify.h"

namespace ljcheck::cli {
namespace {

struct VerifyCommandOptions {
  std::string lintJson;
  std::vector<std::string> runtimeJson;
  std::string format = "text";
  std::string failOn = "none";
  std::string sort = "status";
  bool allowProfileMismatch = false;
  bool includeBenign = false;
};

int runVerify(const VerifyCommandOptions& o) {
  SiteReport lint;
  std::vector<SiteReport> runs;
  try {
    lint = readReport(o.lintJson, "lint");
    std::vector<std::string> notes;
    runs = readRuntimeReports(o.runtimeJson, notes);
    for (const auto& note : notes) std::cerr << "ljcheck verify: warning: " << note << "\n";
  } catch (const ReportError& e) {
    std::cerr << "ljcheck verify: " << e.what() << "\n";
    return kInputError;
  }
  Verification v;
  try {
    v = verify(lint, runs, {o.allowProfileMismatch, o.includeBenign});
  } catch (const ReportError& e) {
    std::cerr << "ljcheck verify: " << e.what() << "\n";
    return kUsage;
  }
  for (const auto& warning : v.warnings) std::cerr << "ljcheck verify: warning: " << warning << "\n";
  if (o.sort == "cost") sortByCost(v);
  if (o.format == "json") writeVerificationJson(std::cout, v);
  else writeVerificationText(std::cout, v);
  if (o.failOn == "missed" && v.total.missed > 0) return kFindings;
  if (o.failOn == "latent" && (v.total.missed > 0 || v.total.latent > 0)) return kFindings;
  return kClean;
}

}  // namespace

Runner addVerifyCommand(CLI::App& app) {
  auto o = std::make_shared<VerifyCommandOptions>();
  auto* cmd = app.add_subcommand("verify", "Join lint predictions with runtime observations");
  cmd->add_option("--static", o->lintJson, "Lint JSON (ljcheck lint --format json)")->required();
  cmd->add_option("--runtime", o->runtimeJson, "Runtime JSON (ljcheck run --json), one or more")->required();
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--sort", o->sort, "Order of the sites: by status, path and line, or by cost (most costly first)")
      ->check(CLI::IsMember({"status", "cost"}));
  cmd->add_option("--fail-on", o->failOn, "Exit 1 on: missed sites, missed or latent sites, or none")
      ->check(CLI::IsMember({"none", "missed", "latent"}));
  cmd->add_flag("--allow-profile-mismatch", o->allowProfileMismatch,
                "Join reports written for different recorder profiles");
  cmd->add_flag("--include-benign", o->includeBenign,
                "Count stop-class observations no prediction names as missed (ljcheck run --include-benign)");
  return [o] { return runVerify(*o); };
}

}  // namespace ljcheck::cli
