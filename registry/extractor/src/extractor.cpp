// The extraction as a whole: runs the scans over a LuaJIT tree (parses in
// parallel where they do not depend on each other), checks that their facts
// agree with each other, and applies the overlay.
#include <algorithm>
#include <filesystem>
#include <optional>

#include "parallel.h"
#include "scans.h"

namespace ljcheck::extractor {
namespace {

// The sources the recorder-error scan follows calls through.
const std::vector<std::string> kRecorderSources = {"lj_ffrecord.c", "lj_crecord.c", "lj_ir.c", "lj_opt_narrow.c"};

struct LibraryFacts {
  std::vector<LibraryFunction> functions;
  std::vector<std::string> cFunctions;
  std::vector<ReturnedFunction> returned;  // by C name
  std::set<std::string> cNames;            // FF_<name> for each fast function
  std::string ffdef;
};

LibraryFacts scanLibraries(const std::vector<std::optional<TranslationUnit>>& units) {
  LibraryFacts facts;
  FastFunctionScan scan;
  for (const auto& unit : units) {
    const std::size_t annotations = scan.scan(*unit);
    std::vector<std::string> registered = scanRegisteredCFunctions(*unit);
    if (annotations == 0 && registered.empty())
      throw ExtractError(unit->file(),
                         "no LJLIB_* annotations and no luaL_register call: cannot tell its library functions");
    facts.cFunctions.insert(facts.cFunctions.end(), registered.begin(), registered.end());
    std::vector<ReturnedFunction> returned = scanReturnedFastFunctions(*unit);
    facts.returned.insert(facts.returned.end(), returned.begin(), returned.end());
  }
  facts.functions = scan.functions();
  for (const LibraryFunction& f : facts.functions) facts.cNames.insert(f.cName);
  facts.ffdef = scan.ffdefHeader();
  for (const auto& unit : units) requireCompiles(*unit, facts.cNames);
  return facts;
}

// Sorted by trace error code; a code lj_traceerr.h does not define is an error.
std::vector<std::string> inCodeOrder(const std::set<std::string>& codes, const std::vector<TraceErrorDef>& errors,
                                     const std::string& recorder) {
  std::vector<std::string> ordered;
  for (const auto& e : errors)
    if (codes.count(e.name)) ordered.push_back(e.name);
  if (ordered.size() != codes.size())
    for (const std::string& code : codes)
      if (std::none_of(errors.begin(), errors.end(), [&](const auto& e) { return e.name == code; }))
        throw ExtractError("lj_ffrecord.c",
                           recorder + " raises LJ_TRERR_" + code + ", which lj_traceerr.h does not define");
  return ordered;
}

void buildFastFunctions(ExtractedProfile& p, const std::vector<LibraryFunction>& functions,
                        const std::map<std::string, std::set<std::string>>& recorderErrors) {
  p.fastFunctions = {{"Lua", "", {}}, {"C", "", {}}};  // ffids 0 and 1 (lj_obj.h: FF_LUA, FF_C)
  for (const LibraryFunction& f : functions) {
    FastFunction ff{f.name, f.recorder, {}};
    if (!f.recorder.empty()) {
      auto it = recorderErrors.find("recff_" + f.recorder);
      if (it == recorderErrors.end())
        throw ExtractError(f.file, "line " + std::to_string(f.line) + ": LJLIB_REC names recff_" + f.recorder +
                                       ", which lj_ffrecord.c and lj_crecord.c do not define");
      ff.errors = inCodeOrder(it->second, p.traceErrors, it->first);
    }
    p.fastFunctions.push_back(std::move(ff));
  }
  for (const auto& [recorder, codes] : recorderErrors)
    p.recorderErrors[recorder.substr(6)] = inCodeOrder(codes, p.traceErrors, recorder);
}

std::vector<std::string> neverStitchNames(const std::vector<std::string>& never,
                                          const std::vector<LibraryFunction>& functions) {
  std::vector<std::string> names;
  for (const LibraryFunction& f : functions)  // ffid order
    if (std::find(never.begin(), never.end(), f.cName) != never.end()) names.push_back(f.name);
  if (names.size() != never.size())
    throw ExtractError("lj_ffrecord.c", "recff_nyi names a fast function no library file defines");
  return names;
}

// By ffname, in ffid order of the returning function.
std::vector<std::pair<std::string, std::string>> returnedNames(const std::vector<ReturnedFunction>& returned,
                                                               const std::vector<LibraryFunction>& functions) {
  auto ffname = [&functions](const std::string& cName) -> const LibraryFunction* {
    for (const LibraryFunction& f : functions)
      if (f.cName == cName) return &f;
    return nullptr;
  };
  std::vector<std::pair<std::string, std::string>> names;
  for (const LibraryFunction& f : functions)
    for (const ReturnedFunction& r : returned) {
      if (r.function != f.cName) continue;
      const LibraryFunction* target = ffname(r.returns);
      if (!target) throw ExtractError(f.file, f.cName + " returns FF_" + r.returns + ", which no library file defines");
      names.emplace_back(f.name, target->name);
    }
  return names;
}

void nameProfile(ExtractedProfile& p, const ExtractOptions& options) {
  if (!options.name.empty()) p.name = options.name;
  std::string release = p.version;
  if (release.rfind("LuaJIT ", 0) == 0) release = release.substr(7);
  if (p.name.empty()) p.name = (p.openresty ? "openresty-" : "luajit-") + release;
  if (p.description.empty())
    p.description = p.version + (p.openresty ? " (OpenResty)" : "") + " for " + p.arch + "/" + p.os;
}

}  // namespace

ExtractedProfile extractProfile(const ExtractOptions& options) {
  SourceTree tree(options.luajitSrc);
  ExtractedProfile p;
  BuildIdentity identity;
  JitDefaults jit;
  const std::vector<std::string> libraries = libraryFiles(tree);
  std::vector<std::optional<TranslationUnit>> libraryUnits(libraries.size());
  std::vector<std::optional<TranslationUnit>> recorderUnits(kRecorderSources.size());

  // Everything that does not need lj_ffdef.h, which the libraries define.
  std::vector<std::function<void()>> tasks = {
      [&] { identity = scanBuildIdentity(tree); },
      [&] { p.traceErrors = scanTraceErrors(tree); },
      [&] { p.bytecodes = scanBytecodes(tree); },
      [&] { jit = scanJitDefaults(tree); },
  };
  for (std::size_t i = 0; i < libraries.size(); ++i)
    tasks.push_back([&, i] { libraryUnits[i].emplace(TranslationUnit::parseFile(tree, libraries[i])); });
  runParallel(tasks);
  const LibraryFacts library = scanLibraries(libraryUnits);
  libraryUnits.clear();
  tree.setGeneratedHeader("lj_ffdef.h", library.ffdef);

  std::optional<TranslationUnit> record;
  tasks = {[&] { record.emplace(TranslationUnit::parseFile(tree, "lj_record.c")); }};
  for (std::size_t i = 0; i < kRecorderSources.size(); ++i)
    tasks.push_back([&, i] { recorderUnits[i].emplace(TranslationUnit::parseFile(tree, kRecorderSources[i])); });
  runParallel(tasks);

  p.version = identity.version;
  p.versionNum = identity.versionNum;
  p.openresty = identity.openresty;
  p.arch = identity.arch;
  p.os = identity.os;
  p.gc64 = identity.gc64;
  p.jitFlags = jit.flags;
  p.params = jit.params;
  p.hotCounters = jit.hotCounters;
  p.cFunctions = library.cFunctions;
  p.returnsFunction = returnedNames(library.returned, library.functions);
  requireCompiles(*record, library.cNames);
  for (const auto& unit : recorderUnits) requireCompiles(*unit, library.cNames);
  p.nyiBytecodes = scanNyiBytecodes(*record, p.bytecodes);
  p.neverStitch = neverStitchNames(scanNeverStitch(*recorderUnits[0]), library.functions);  // lj_ffrecord.c
  std::vector<const TranslationUnit*> units;
  for (const auto& unit : recorderUnits) units.push_back(&*unit);
  buildFastFunctions(p, library.functions, scanRecorderErrors(units));

  p.generatedBy = "ljcheck registry extract: libclang over the LuaJIT source tree";
  if (!options.overlayPath.empty()) {
    applyOverlay(options.overlayPath, p);
    p.generatedBy += ", plus the overlay " + std::filesystem::path(options.overlayPath).filename().string();
  }
  nameProfile(p, options);
  return p;
}

}  // namespace ljcheck::extractor
