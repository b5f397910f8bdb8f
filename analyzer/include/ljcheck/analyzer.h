// The static analyzer's entry point: Lua files in, predictions out.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"

namespace ljcheck {

struct AnalyzeOptions {
  const RecorderProfile* profile = nullptr;  // null: defaultProfile()
  std::string root;                          // paths are reported relative to it; empty: cwd
  unsigned jobs = 1;
  std::uintmax_t maxFileBytes = 32u << 20;   // larger files are reported, not analyzed
  // Predictions below this confidence are left out. Likely by default: what
  // the recorder refuses for sure, plus structural predictions the analyzer
  // has evidence for; Possible adds the speculative ones.
  Confidence minConfidence = Confidence::Likely;
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Expands files and directories (recursively, *.lua, following no symlink
// loops) into a sorted list of files. Unreadable inputs become FileErrors.
struct InputList {
  std::vector<std::string> files;
  std::vector<FileError> errors;
};
InputList collectInputs(const std::vector<std::string>& paths);

// Analyzes one Lua source held in memory; `path` is how it is reported.
FileResult analyzeSource(std::string_view source, const std::string& path,
                         const RecorderProfile& profile, Confidence minConfidence = Confidence::Likely);

// Analyzes files in parallel; results come back in the order of `files`.
std::vector<FileResult> analyzeFiles(const std::vector<std::string>& files,
                                     const AnalyzeOptions& options);

}  // namespace ljcheck
