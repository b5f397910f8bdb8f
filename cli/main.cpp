// ljcheck: finds where LuaJIT's trace compiler gives up on a Lua program.
#include <algorithm>
#include <iostream>
#include <map>

#include "commands.h"
#include "ljcheck/reason.h"

int main(int argc, char** argv) {
  using namespace ljcheck::cli;
  CLI::App app{"ljcheck: finds where LuaJIT's trace compiler gives up on a Lua program"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ljcheck " LJCHECK_VERSION);
  std::map<CLI::App*, Runner> runners;
  auto add = [&](Runner (*f)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    Runner r = f(app);
    runners[app.get_subcommands({})[before]] = std::move(r);
  };
  add(addLintCommand);
  add(addRunCommand);
  add(addVerifyCommand);
  add(addReportCommand);
  add(addRegistryCommand);
  add(addLspCommand);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string first = argc > 1 ? argv[1] : "";
    auto commands = app.get_subcommands({});
    bool known = std::any_of(commands.begin(), commands.end(), [&](CLI::App* c) { return c->check_name(first); });
    if (!first.empty() && first[0] != '-' && !known) {
      std::cerr << "ljcheck: unknown command '" << first << "'; commands:";
      for (const auto* sub : commands) std::cerr << ' ' << sub->get_name();
      std::cerr << "\n";
    } else {
      // Named by the command it is about, as the commands' own errors are.
      std::cerr << "ljcheck" << (known ? " " + first : std::string()) << ": " << e.what() << "\n";
    }
    return kUsage;
  }
  try {
    for (auto* sub : app.get_subcommands()) {
      if (!runners.count(sub)) continue;
      int status = runners[sub]();
      // What a command wrote to standard output must have got there (a full
      // disk, a closed pipe): a report half written is no report.
      std::cout.flush();
      if (!std::cout && status != kInputError) {
        std::cerr << "ljcheck " << sub->get_name() << ": cannot write to standard output\n";
        return kInputError;
      }
      return status;
    }
  } catch (const std::exception& e) {
    std::cerr << "ljcheck: " << e.what() << "\n";
    return kInputError;
  }
  return kUsage;
}
