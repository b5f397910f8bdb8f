// A project kept analyzed between edits, for the language server: the same
// project pass as `ljcheck lint` over the same files (require() links,
// heat carried from a loop in one file to a function of another), with
// unsaved buffers analyzed from their text, and each file analyzed again
// only when its text, or the heat other files give it, changed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"

namespace ljcheck {

class ProjectAnalysis {
 public:
  // `files` as collectInputs lists them; reported relative to options.root.
  ProjectAnalysis(std::vector<std::string> files, AnalyzeOptions options);
  ~ProjectAnalysis();
  ProjectAnalysis(const ProjectAnalysis&) = delete;
  ProjectAnalysis& operator=(const ProjectAnalysis&) = delete;

  // Analyze `file` from `text` (an unsaved buffer) until forgotten; a file
  // that is not yet one of the project's joins it.
  void setText(const std::string& file, std::string text);
  // Read `file` from disk again (its buffer was closed or saved, or it changed).
  void useDisk(const std::string& file);
  bool contains(const std::string& file) const;
  // A file that appeared on disk joins the project, read from disk.
  void addFile(const std::string& file);

  // Analyzes what changed since the last update. Returns the files whose
  // result may differ from the one before (all of them the first time).
  std::vector<std::string> update();
  // The latest result of a file (as given to the constructor or setText);
  // null when the file is not one of the project's.
  const FileResult* result(const std::string& file) const;
  // The file as reports show it (relative to the root, or absolute).
  std::string shown(const std::string& file) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ljcheck
