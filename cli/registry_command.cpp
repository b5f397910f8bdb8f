// `ljcheck registry`: the reason catalog and the recorder profiles.
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"
#include "registry_extract_command.h"

namespace ljcheck::cli {
namespace {

struct RegistryOptions {
  std::string profile;
  std::string format = "text";
};

int showProfile(const RecorderProfile& p, const std::string& format) {
  if (format == "json") {
    std::cout << fmt::format("{{\"name\": \"{}\", \"id\": \"{}\", \"supported\": {}}}\n", p.name, p.id,
                             p.supported ? "true" : "false");
    return kClean;
  }
  std::size_t recorded = 0;
  for (const auto& f : p.fastFunctions) recorded += f.recorded();
  std::cout << fmt::format("profile     {}\nid          {}\nsupported   {}\nluajit      {}{}\narch/os     {}/{}\n",
                           p.name, p.id, p.supported ? "yes" : "no", p.version,
                           p.openresty ? " (OpenResty)" : "", p.arch, p.os);
  std::cout << fmt::format("bytecodes   {}\nfast funcs  {} ({} recorded)\ntrace errs  {}\n", p.bytecodes.size(),
                           p.fastFunctions.size(), recorded, p.traceErrors.size());
  std::cout << "NYI bytecodes:";
  for (const auto& b : p.nyiBytecodes) std::cout << ' ' << b;
  std::cout << "\n";
  return kClean;
}

int showCatalog(const RegistryOptions& o) {
  const RecorderProfile* p = o.profile.empty() ? &defaultProfile() : findProfile(o.profile);
  if (!p) {
    std::cerr << "ljcheck registry: unknown recorder profile '" << o.profile << "'\n";
    return kUsage;
  }
  const auto& c = ReasonCatalog::builtin();
  std::cout << fmt::format("reason catalog {} version {}\n\n", c.id(), c.version());
  std::cout << fmt::format("{:<9} {:<8} {:<10} {}\n", "code", "class", "severity", "title");
  for (const auto& r : c.reasons())
    std::cout << fmt::format("{:<9} {:<8} {:<10} {}{}\n", r.code, toString(r.reasonClass), toString(r.severity),
                             r.title, r.benign ? " (benign)" : "");
  std::cout << '\n';
  return showProfile(*p, "text");
}

}  // namespace

Runner addRegistryCommand(CLI::App& app) {
  auto o = std::make_shared<RegistryOptions>();
  auto* cmd = app.add_subcommand("registry", "Show the reason catalog and recorder profiles");
  cmd->require_subcommand(1);
  auto* profile = cmd->add_subcommand("profile", "Print the recorder profile of the embedded LuaJIT");
  profile->add_option("--format", o->format)->check(CLI::IsMember({"text", "json"}));
  auto* show = cmd->add_subcommand("show", "Print the catalog and a profile as tables");
  show->add_option("--profile", o->profile, "Profile id or short name");
  RegistrySubcommand extract = addRegistryExtract(*cmd);
  return [o, profile, show, extract]() -> int {
    if (profile->parsed()) return showProfile(defaultProfile(), o->format);
    if (show->parsed()) return showCatalog(*o);
    if (extract.app->parsed()) return extract.run();
    return kUsage;
  };
}

}  // namespace ljcheck::cli
