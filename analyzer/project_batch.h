// The project pass shared by `ljcheck lint` (analyzeFiles) and the language
// server's ProjectAnalysis: a batch of files analyzed in parallel, then the
// rounds that carry heat from calls in one file to functions of another.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ljcheck/analyzer.h"
#include "project.h"
#include "project_order.h"

namespace ljcheck {

struct ProjectFiles {
  const std::vector<std::string>& files;  // as given: read from here
  std::vector<std::string> shown;          // as reports show them, by index
  const AnalyzeOptions& options;
  // Unsaved text by file (as given in `files`): analyzed instead of the
  // file on disk. Null: every file is read.
  const std::map<std::string, std::string>* overlay = nullptr;
  // Bytes of bytecode dumps that may still be kept for a second analysis;
  // null: none is kept, a file analyzed again is compiled again. A file
  // read from disk whose dump is kept has its predictions mapped to its
  // source only by mapKeptSources, after the rounds, from the file read
  // again (analyzeFiles).
  std::atomic<std::size_t>* dumpBudget = nullptr;
  // ctypes with `__new` and registering functions each file reaches
  // through other files' module tables (ProjectIndex::moduleImports); null:
  // none are known yet.
  const std::map<std::size_t, ModuleImports>* moduleImports = nullptr;
  // What the last analysis of a file's unsaved text leaves for the next
  // (the language server's open buffers), by index: a file found here is
  // analyzed with it whenever it is compiled from that text. Read-only
  // during a batch; one thread at a time uses an entry.
  std::map<std::size_t, AnalysisReuse>* reuse = nullptr;
  // Each file's size in bytes, by index, for the order in which workers
  // take them; empty: looked up for each batch.
  std::vector<std::uintmax_t> sizes = {};
  // By index: the file requires itself through others (inRequireCycles);
  // empty: every file is taken to, and no counts flow on through it.
  std::vector<char> inRequireCycle = {};

  const std::string* unsavedText(std::size_t i) const {
    if (!overlay) return nullptr;
    auto it = overlay->find(files[i]);
    return it == overlay->end() ? nullptr : &it->second;
  }
  AnalysisReuse* reuseOf(std::size_t i) const {
    if (!reuse) return nullptr;
    auto it = reuse->find(i);
    return it == reuse->end() ? nullptr : &it->second;
  }
};

// A first pass in callers-first order (project_order.h): each file waits
// for the analyses of the files before it that require it, and takes the
// heat their calls give its functions; `given` keeps that heat, by file,
// for the rounds.
struct OrderedPass {
  const ProjectIndex& index;
  CallersFirst order;
  std::vector<IncomingHeat> given;
};

// Analyzes the files at `which` on `options.jobs` threads, each with the
// heat `incoming` gives it; its result and links land at its index. With
// `ordered`, `which` is every file, handed out by a CallersFirstQueue.
void analyzeBatch(const ProjectFiles& project, const std::vector<std::size_t>& which,
                  const std::map<std::size_t, IncomingHeat>& incoming, std::vector<FileResult>& results,
                  std::vector<FileLinks>& links, bool progress, OrderedPass* ordered = nullptr);

// The rounds after a first pass: while other files' calls make some file's
// exported functions hotter than its latest analysis was told (`used`),
// adds those heats to `used` and calls `analyzeAgain` on those files, which
// must update `links` for them.
void settleProject(const ProjectIndex& index, const std::vector<FileLinks>& links,
                   std::map<std::size_t, IncomingHeat>& used,
                   const std::function<void(const std::vector<std::size_t>&)>& analyzeAgain);

}  // namespace ljcheck
