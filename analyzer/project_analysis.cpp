// A project kept analyzed between edits (see project_analysis.h). The pass
// is analyzeFiles' own (project_batch.h); what is kept is each file's first
// analysis (its own text, no heat from elsewhere) until its text changes,
// and its latest analysis with other files' heat until that heat changes.
// Results are what a fresh `ljcheck lint` of the same texts gives.
#include "ljcheck/project_analysis.h"

#include <optional>
#include <set>

#include "file_text.h"
#include "ljcheck/project_path.h"
#include "project.h"
#include "project_batch.h"
#include "required_modules.h"

namespace ljcheck {
namespace {

bool sameHeat(const IncomingHeat& a, const IncomingHeat& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || !flow::sameCaller(i->second, j->second)) return false;
  return true;
}

bool sameConstructor(const flow::CtypeConstructor& a, const flow::CtypeConstructor& b) {
  return a.spelling == b.spelling && a.newProto == b.newProto && a.metatypeLine == b.metatypeLine &&
         a.initializer == b.initializer && a.initializerLine == b.initializerLine && a.definedIn == b.definedIn;
}

bool sameRegistrar(const flow::CtypeRegistrar& a, const flow::CtypeRegistrar& b) {
  return a.proto == b.proto && a.tableParam == b.tableParam && a.field == b.field && a.keyParam == b.keyParam &&
         a.ctypeParam == b.ctypeParam && a.metatableParam == b.metatableParam && a.storeLine == b.storeLine &&
         a.definedIn == b.definedIn;
}

template <typename Map, typename Same>
bool sameMaps(const Map& a, const Map& b, Same same) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || !same(i->second, j->second)) return false;
  return true;
}

bool sameImports(const ModuleImports& a, const ModuleImports& b) {
  return sameMaps(a.constructors, b.constructors, sameConstructor) && sameMaps(a.registrars, b.registrars, sameRegistrar) &&
         a.returnedBuiltins == b.returnedBuiltins &&
         sameMaps(a.tailCalls, b.tailCalls, flow::sameTailCall) && a.loopingMembers == b.loopingMembers &&
         a.abortingMembers == b.abortingMembers && a.luaMethods == b.luaMethods &&
         a.overriddenMethods == b.overriddenMethods && a.methodsStoredElsewhere == b.methodsStoredElsewhere &&
         a.loadedInPlace == b.loadedInPlace && a.inlinedMembers == b.inlinedMembers;
}

// What the rounds read of a file's links: its exports and calls, no dump.
FileLinks withoutDump(const FileLinks& links) {
  return FileLinks{links.exports,     links.calls, links.constructors, links.registrars,
                   links.memberCalls, {},          links.returnedBuiltins, links.tailCalls,
                   links.loopingExports,    links.membersBehindAborts, links.abortingExports,
                   links.membersBeforeLoopCalls, std::nullopt,       links.assignedMembers,
                   links.overridingMembers, links.methodsStoredOnObjects, links.resolvedMethods,
                   links.classBase, links.modulesLoadedInPlace, links.inlinedExports, links.membersBeforeRefused, links.classMakers,
                   links.classFields, links.namesPassed};
}

}  // namespace

struct ProjectAnalysis::State {
  struct Seeded {  // an analysis with heat from other files
    IncomingHeat heat;
    FileResult result;
    FileLinks links;
  };

  AnalyzeOptions options;
  ProjectRoot root;
  std::vector<std::string> files, shown;
  std::map<std::string, std::size_t> byFile;
  std::map<std::string, std::string> unsaved;
  std::map<std::size_t, AnalysisReuse> reuse;  // by index, for each unsaved buffer
  std::optional<ProjectIndex> index;
  std::vector<bool> dirty;
  std::vector<FileResult> first;
  std::vector<FileLinks> firstLinks;  // with the dump of a file with exports, for its second analysis
  std::vector<ModuleImports> firstImports;  // what of other files its first analysis knew
  std::map<std::size_t, ModuleImports> imports;  // the latest, for every file that has some
  std::vector<std::optional<Seeded>> seeded;
  std::vector<bool> usesSeeded;  // the latest result is seeded's
  std::vector<std::vector<std::string>> required;  // by index: the modules its text requires
  std::vector<char> inRequireCycle;                // as analyzeFiles finds it (inRequireCycles)

  State(std::vector<std::string> f, AnalyzeOptions o) : options(std::move(o)), root(options.root) {
    for (auto& file : f) add(std::move(file));
  }

  std::size_t add(std::string file) {
    std::size_t i = files.size();
    shown.push_back(root.show(file));
    byFile[file] = i;
    files.push_back(std::move(file));
    dirty.push_back(true);
    first.emplace_back();
    firstLinks.emplace_back();
    firstImports.emplace_back();
    seeded.emplace_back();
    usesSeeded.push_back(false);
    required.emplace_back();
    index.reset();
    return i;
  }

  void invalidate(std::size_t i) {
    dirty[i] = true;
    seeded[i].reset();
  }

  std::set<std::size_t> update() {
    ProjectFiles project{files, shown, options, &unsaved};
    project.reuse = &reuse;
    if (!index) index.emplace(shown);
    std::set<std::size_t> changed;
    std::vector<std::size_t> stale;
    for (std::size_t i = 0; i < files.size(); ++i)
      if (dirty[i]) {
        stale.push_back(i);
        firstLinks[i] = {};  // else its old dump would stand in for the new text
      }
    // Which files are in cycles of modules, as analyzeFiles finds them: a
    // seeded analysis of a file that joined or left one is not kept.
    std::vector<char> buffer;
    for (std::size_t i : stale) {
      auto it = unsaved.find(files[i]);
      required[i] = it != unsaved.end() ? requiredModules(it->second)
                                        : requiredModulesOf(files[i], options.maxFileBytes, buffer);
    }
    std::vector<char> cycles = files.size() > 1 ? inRequireCycles(index->callersOf(required)) : std::vector<char>{};
    for (std::size_t i = 0; i < files.size(); ++i)
      if ((i < cycles.size() && cycles[i]) != (i < inRequireCycle.size() && inRequireCycle[i])) seeded[i].reset();
    inRequireCycle = std::move(cycles);
    project.inRequireCycle = inRequireCycle;
    if (!stale.empty()) analyzeBatch(project, stale, {}, first, firstLinks, false);
    for (std::size_t i : stale) {
      dirty[i] = false;
      firstImports[i] = {};
      changed.insert(i);
    }
    // As analyzeFiles does: a file that calls other files' ctypes with
    // `__new` or functions registering ctypes is analyzed again knowing
    // them, whenever they change.
    imports = index->moduleImports(firstLinks);
    project.moduleImports = &imports;
    std::vector<std::size_t> importing;
    for (std::size_t i = 0; i < files.size(); ++i) {
      auto it = imports.find(i);
      const ModuleImports none;
      if (sameImports(it == imports.end() ? none : it->second, firstImports[i])) continue;
      firstImports[i] = it == imports.end() ? none : it->second;
      seeded[i].reset();
      importing.push_back(i);
    }
    if (!importing.empty()) analyzeBatch(project, importing, {}, first, firstLinks, false);
    changed.insert(importing.begin(), importing.end());
    std::vector<FileLinks> links;
    links.reserve(files.size());
    for (const auto& l : firstLinks) links.push_back(withoutDump(l));
    std::map<std::size_t, IncomingHeat> used;
    std::vector<FileResult> results(files.size());
    settleProject(*index, links, used, [&](const std::vector<std::size_t>& again) {
      std::vector<std::size_t> run;
      for (std::size_t i : again) {
        if (seeded[i] && sameHeat(seeded[i]->heat, used[i])) links[i] = withoutDump(seeded[i]->links);
        else run.push_back(i);
      }
      if (run.empty()) return;
      for (std::size_t i : run) links[i].dump = firstLinks[i].dump;
      analyzeBatch(project, run, used, results, links, false);
      for (std::size_t i : run) {
        links[i].dump.clear();
        seeded[i] = Seeded{used[i], std::move(results[i]), links[i]};
        changed.insert(i);
      }
    });
    for (std::size_t i = 0; i < files.size(); ++i) {
      bool nowSeeded = used.count(i) > 0;
      if (nowSeeded != usesSeeded[i]) changed.insert(i);
      usesSeeded[i] = nowSeeded;
    }
    return changed;
  }
};

ProjectAnalysis::ProjectAnalysis(std::vector<std::string> files, AnalyzeOptions options)
    : state_(std::make_unique<State>(std::move(files), std::move(options))) {}

ProjectAnalysis::~ProjectAnalysis() = default;

void ProjectAnalysis::setText(const std::string& file, std::string text) {
  auto it = state_->byFile.find(file);
  std::size_t i = it == state_->byFile.end() ? state_->add(file) : it->second;
  state_->unsaved[file] = std::move(text);
  state_->reuse.try_emplace(i);
  state_->invalidate(i);
}

void ProjectAnalysis::useDisk(const std::string& file) {
  state_->unsaved.erase(file);
  if (auto it = state_->byFile.find(file); it != state_->byFile.end()) {
    state_->reuse.erase(it->second);
    state_->invalidate(it->second);
  }
}

bool ProjectAnalysis::contains(const std::string& file) const { return state_->byFile.count(file) > 0; }

void ProjectAnalysis::addFile(const std::string& file) {
  if (!contains(file)) state_->add(file);
}

std::vector<std::string> ProjectAnalysis::update() {
  std::vector<std::string> out;
  for (std::size_t i : state_->update()) out.push_back(state_->files[i]);
  return out;
}

const FileResult* ProjectAnalysis::result(const std::string& file) const {
  auto it = state_->byFile.find(file);
  if (it == state_->byFile.end()) return nullptr;
  std::size_t i = it->second;
  return state_->usesSeeded[i] ? &state_->seeded[i]->result : &state_->first[i];
}

std::string ProjectAnalysis::shown(const std::string& file) const { return state_->root.show(file); }

}  // namespace ljcheck
