// The static analyzer's entry point: Lua files in, predictions out.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ljcheck/builtin_aliases.h"
#include "ljcheck/c_modules.h"
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
  BuiltinAliases aliases;  // builtins under other names (std, globals)
  // Which require names load C modules (--cpath, c-modules); null: none.
  std::shared_ptr<const CModules> cModules;
  std::function<void(std::size_t done, std::size_t total)> progress;
  // Bytes of bytecode dumps kept between call-graph rounds, at most: a
  // module whose exports other files call hot, or a file that learns
  // something of the modules it calls (ModuleImports), is analyzed again,
  // from its kept dump when it fits (and mapped to its source once, after
  // its last analysis, from the file read again; one changed meanwhile is
  // reported and keeps its findings without columns), and read and
  // compiled again otherwise. The bound keeps memory per file to
  // the report once a tree holds more code than this.
  std::size_t keptDumpBytes = std::size_t{32} << 20;
};

// Expands files and directories (recursively, *.lua, following no symlink
// loops) into a sorted list of files. Unreadable inputs become FileErrors.
// A file reached through two paths (a directory symlink named as an input,
// a bind mount) is listed once, under the first of its paths.
struct InputList {
  std::vector<std::string> files;
  std::vector<std::uintmax_t> sizes;  // by file: its size in bytes when listed (0: unknown)
  std::vector<FileError> errors;
};
// Which files a directory walk takes. Globs are matched against a path
// relative to `base` (empty: the working directory) and against each of its
// parent folders, so `vendor` and `vendor/*` both leave out all of vendor/.
// `*` crosses '/', a leading `**/` also matches nothing; an absolute glob
// is matched against the absolute path. Excluded paths are
// left out wherever they come from; with `include` set, a walk takes the
// files it matches (any extension) instead of *.lua.
struct InputFilter {
  std::string base;
  std::vector<std::string> include, exclude;
};
InputList collectInputs(const std::vector<std::string>& paths, const InputFilter& filter = {});
// Whether `path` (relative to the working directory, or absolute) matches
// one of `globs`, as InputFilter matches them.
bool pathMatchesGlobs(const std::vector<std::string>& globs, const std::string& base, const std::string& path);
// What is wrong with a glob as fnmatch reads it, or empty: a '[' that no ']'
// closes would match itself and nothing else, silently (audit 49:
// exclude = ["[unclosed"]). Said for the config's globs and --exclude alike.
std::string globProblem(const std::string& glob);

// What analyzing the same document again after an edit (the language
// server) takes over from its last analysis, so that an edit costs less
// than a fresh analysis. The result is always the one a fresh analysis
// gives. One per document; not shared between threads.
class AnalysisReuse {
 public:
  AnalysisReuse();
  ~AnalysisReuse();
  AnalysisReuse(AnalysisReuse&&) noexcept;
  AnalysisReuse& operator=(AnalysisReuse&&) noexcept;
  // Of the last analysis: prototypes taken over from the one before, and decoded.
  std::size_t prototypesReused() const;
  std::size_t prototypesDecoded() const;
  // Of the last analysis: value passes (one prototype each) taken over from
  // the one before, and run.
  std::size_t valuePassesReused() const;
  std::size_t valuePassesRun() const;
  // Whether the last analysis took the token index over (an edit of digits only).
  bool tokenIndexTakenOver() const;
  // Whether the last analysis compiled only the edited function and spliced
  // it into the last dump (function_splice.h) instead of compiling the whole text.
  bool functionSpliced() const;
  struct State;
  State& state() { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// Analyzes one Lua source held in memory; `path` is how it is reported.
// With `reuse`, takes over what it can from that document's last analysis.
FileResult analyzeSource(std::string_view source, const std::string& path,
                         const RecorderProfile& profile, Confidence minConfidence = Confidence::Likely,
                         const BuiltinAliases& aliases = {}, const CModules* cModules = nullptr,
                         AnalysisReuse* reuse = nullptr);

// Analyzes files in parallel; results come back in the order of `files`.
// `sizes` (InputList's), when given, spare looking each file's size up
// again: the workers take the largest first.
std::vector<FileResult> analyzeFiles(const std::vector<std::string>& files,
                                     const AnalyzeOptions& options,
                                     const std::vector<std::uintmax_t>& sizes = {});

}  // namespace ljcheck
