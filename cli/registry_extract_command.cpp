// `ljcheck registry extract ...`: runs the extractor executable
// `ljcheck-extract` built beside this binary, with the arguments as given, and
// exits with its status. The extractor links libclang; keeping it out of
// process keeps LLVM out of every other ljcheck command's start-up.
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "registry_subcommands.h"

namespace ljcheck::cli {

std::string executableDirectory() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "";
  const std::string self(path, static_cast<std::size_t>(n));
  return self.substr(0, self.find_last_of('/'));
}

namespace {

constexpr const char* kCalledAs = "ljcheck registry extract";  // the extractor's argv[0], its messages' prefix
constexpr const char* kExtractorName = "ljcheck-extract";

// Replaces this process with the extractor; returns only when it cannot start.
int runExtractor(const std::vector<std::string>& args) {
  const std::string dir = executableDirectory();
  const std::string extractor = dir + "/" + kExtractorName;
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(kCalledAs));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execv(extractor.c_str(), argv.data());
  const int error = errno;
  // Help asked for still gets an answer: what this command is and what it needs.
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << "Usage: " << kCalledAs << " [OPTIONS]\n\nWrites the recorder profile of a LuaJIT source tree. "
              << "Its options are the extractor's (" << kExtractorName << " --help), which is not installed here: "
              << extractor << ": " << std::strerror(error) << "\n";
    return kClean;
  }
  std::cerr << kCalledAs << ": cannot run " << extractor << ": " << std::strerror(error);
  if (error == ENOENT) std::cerr << " (" << kExtractorName << " is built and installed beside ljcheck)";
  std::cerr << "\n";
  return kInputError;
}

}  // namespace

RegistrySubcommand addRegistryExtract(CLI::App& registryCmd) {
  auto* cmd = registryCmd.add_subcommand(
      "extract", "Write the recorder profile of a LuaJIT source tree (runs ljcheck-extract)");
  // Every argument, --help included, goes to the extractor unparsed.
  cmd->prefix_command();
  cmd->set_help_flag();
  return {cmd, [cmd]() { return runExtractor(cmd->remaining()); }};
}

}  // namespace ljcheck::cli
