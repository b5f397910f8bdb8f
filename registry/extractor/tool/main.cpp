// ljcheck-extract: reads a LuaJIT source tree with libclang and writes its
// recorder profile as deterministic JSON, to standard output or atomically to
// --out. Its own executable so that `ljcheck` links no LLVM: `ljcheck registry
// extract` runs this one, found beside itself.
//
// Exit codes as ljcheck's: 0 written, 2 usage, 3 a tree or overlay that lacks
// a fact (the message names the file). Messages start with the name it was
// called by: `ljcheck registry extract` passes that as argv[0].
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "ljcheck/extractor.h"

namespace {

enum ExitCode : int { kClean = 0, kUsage = 2, kInputError = 3 };

// argv[0] up to its last slash: "ljcheck-extract", or "ljcheck registry extract".
std::string programName(int argc, char** argv) {
  const std::string called = argc > 0 && argv[0] && *argv[0] ? argv[0] : "ljcheck-extract";
  return called.substr(called.find_last_of('/') + 1);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ljcheck::extractor;
  const std::string name = programName(argc, argv);
  CLI::App app{"Write the recorder profile of a LuaJIT source tree", name};
  ExtractOptions options;
  std::string out;
  app.add_option("--luajit-src", options.luajitSrc, "LuaJIT source tree (or its src/ folder)")
      ->option_text("DIR REQUIRED")
      ->required();
  app.add_option("--name", options.name, "Short profile name (default: the overlay's, else from the version)")
      ->option_text("NAME");
  app.add_option("--overlay", options.overlayPath, "Hand-written facts, each with its reason (JSON)")
      ->option_text("FILE");
  app.add_option("--out", out, "Write here instead of standard output")->option_text("FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return kUsage;
  }
  try {
    const std::string json = toJson(extractProfile(options));
    if (out.empty())
      std::cout << json;
    else
      writeFileAtomically(out, json);
    return kClean;
  } catch (const std::exception& e) {  // ExtractError names the file; anything else is an input error too
    std::cerr << name << ": " << e.what() << "\n";
    return kInputError;
  }
}
