// Reading a linted file: its text as one read finds it (a regular file in
// one go, a pipe or a device in chunks, never past the size limit), and,
// ahead of the analyses, the modules a file requires.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ljcheck/prediction.h"
#include "project.h"

namespace ljcheck {

// A file's text as one read found it, or why it could not be read.
struct ReadText {
  std::string content;
  std::optional<FileStamp> stamp;  // a regular file's
  std::optional<FileError::Kind> problemKind;
  std::string problem;
};

ReadText readText(const std::string& file, std::uintmax_t maxBytes);

// The modules a regular file requires (required_modules.h), its text read
// into `buffer`, which each thread reuses: the pages of one buffer are
// touched once, not those of every file. None for a file that cannot be
// read, is not a regular file or is larger than `maxBytes`: its analysis
// says why. Asked what the file is before it is opened: opening a named
// pipe would wait for its writer, and closing it unread would lose what the
// writer sends.
std::vector<std::string> requiredModulesOf(const std::string& file, std::uintmax_t maxBytes, std::vector<char>& buffer);

}  // namespace ljcheck
