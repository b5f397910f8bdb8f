// The subcommands of the ljcheck executable. Each registers its options on
// the CLI11 app and runs against the libraries; none holds analysis logic.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace ljcheck::cli {

// luacheck-like exit codes: 0 clean, 1 findings at or above the threshold,
// 2 usage or configuration errors, 3 inputs that could not be read or compiled.
enum ExitCode : int { kClean = 0, kFindings = 1, kUsage = 2, kInputError = 3 };

using Runner = std::function<int()>;

// The directory of the running executable, from /proc/self/exe; "" if unknown.
std::string executableDirectory();

// Where the reason pages are as a URI ending in '/' (lint_command.cpp): the
// option, else LJCHECK_DOCS_URL, else the docs/ folder beside the binary.
std::string docsBase(const std::string& option);

Runner addLintCommand(CLI::App& app);
Runner addRunCommand(CLI::App& app);
Runner addVerifyCommand(CLI::App& app);
Runner addReportCommand(CLI::App& app);
Runner addRegistryCommand(CLI::App& app);
Runner addLspCommand(CLI::App& app);

}  // namespace ljcheck::cli
