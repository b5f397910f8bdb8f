// Cross-file links (see project.h).
#include "project.h"

#include <algorithm>
#include <optional>

#include "flow/module_member.h"

namespace ljcheck {
namespace {

bool endsWith(std::string_view s, std::string_view tail) {
  return s.size() > tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool isInit(std::string_view path) { return path == "init.lua" || endsWith(path, "/init.lua"); }

// A path without ".lua" (or "/init.lua"): what `require` names it by from
// the root, with slashes for dots; nothing for another file.
std::optional<std::string_view> modulePath(std::string_view path) {
  for (std::string_view suffix : {std::string_view("/init.lua"), std::string_view(".lua")})
    if (endsWith(path, suffix)) return path.substr(0, path.size() - suffix.size());
  return std::nullopt;
}

// Appends the module names `path` can be required under to `names`, one
// entry each for `file`: its modulePath with dots for slashes, and every
// tail of it that starts at a folder: package.path is not known, so any
// folder may be a root.
void addModuleNames(std::string_view whole, std::size_t file, std::string& names,
                    std::vector<ProjectIndex::Entry>& out) {
  const std::optional<std::string_view> path = modulePath(whole);
  if (!path) return;
  for (std::size_t start = 0; start < path->size();) {
    std::string_view name = path->substr(start);
    if (name.find('.') == std::string_view::npos) {  // a dot in a folder name cannot be required
      out.push_back({names.size(), name.size(), file});
      for (char c : name) names.push_back(c == '/' ? '.' : c);
    }
    std::size_t slash = path->find('/', start);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
}

// The length of the module name a path is required under from the root
// ("a/b.lua", "a/b/init.lua": that of "a.b").
std::size_t moduleLength(std::string_view path) {
  const std::optional<std::string_view> name = modulePath(path);
  return name ? name->size() : 0;
}

// How many leading folders two paths share.
std::size_t sharedFolders(std::string_view a, std::string_view b) {
  std::size_t shared = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i)
    if (a[i] == '/') ++shared;
  return shared;
}

std::string describeCall(const flow::ModuleCall& call, const std::string& caller) {
  // A member of the module table by its own name ("step is called"), as
  // the file it is said of defines it.
  flow::ModuleMemberName name{call.module, call.member};
  std::string site = name.isMethodOfResult()                             ? name.described() + ", is called"
                     : name.namesResult() || name.member == flow::kModuleItself ? name.described() + " is called"
                                                                                : call.member + " is called";
  if (!call.loopLine) {
    // Runs its file's own calls count (a helper a loop calls), or other
    // files' through it (ModuleCall::runs).
    if (!call.unknownTrips && call.runs > 1)
      return site + " at line " + std::to_string(call.line) + " of " + caller + ", in code that runs at least " +
             std::to_string(call.runs) + " times";
    return site + " at line " + std::to_string(call.line) + " of " + caller + ", in code that runs hot";
  }
  site += " from the loop at line " + std::to_string(call.loopLine) + " of " + caller;
  if (!call.unknownTrips) return site + ", which runs " + std::to_string(call.iterations) + " times";
  return site + ", whose trip count the bytecode does not show";
}

}  // namespace

ProjectIndex::ProjectIndex(const std::vector<std::string>& paths) : paths_(paths) {
  // All the names in one string, not a string each: this runs between the
  // first analyses and the rounds, with every worker waiting, and fresh
  // memory costs a page fault per page here.
  for (std::size_t i = 0; i < paths_.size(); ++i) addModuleNames(paths_[i], i, names_, byModule_);
  std::sort(byModule_.begin(), byModule_.end(), [&](const Entry& a, const Entry& b) {
    std::string_view x = nameOf(a), y = nameOf(b);
    return x != y ? x < y : a.file < b.file;
  });
  ranges_.reserve(byModule_.size());
  for (std::size_t first = 0, last = 0; first < byModule_.size(); first = last) {
    const std::string_view name = nameOf(byModule_[first]);
    for (last = first + 1; last < byModule_.size() && nameOf(byModule_[last]) == name;) ++last;
    ranges_.emplace(name, std::make_pair(first, last));
  }
}

std::string_view ProjectIndex::nameOf(const Entry& e) const { return std::string_view(names_).substr(e.offset, e.length); }

std::optional<std::size_t> ProjectIndex::resolve(std::string_view module, std::size_t from) const {
  auto range = ranges_.find(module);
  if (range == ranges_.end()) return std::nullopt;
  const auto first = byModule_.begin() + static_cast<std::ptrdiff_t>(range->second.first);
  const auto last = byModule_.begin() + static_cast<std::ptrdiff_t>(range->second.second);
  if (last - first == 1) return first->file;
  // Several: a project's own module is the likelier one; two equally close
  // candidates leave it to package.path, which is not known. The one at the
  // root's own path (`util.lua` for "util") is what the default
  // package.path's `./?.lua` loads when the program runs from the root
  // (audit 78: `require("util")` in net/bench.lua loaded ./util.lua, not
  // net/util.lua): when the closest is another, which loads depends on the
  // working directory and package.path, and nothing is linked.
  // Of `a/b.lua` and `a/b/init.lua` at the root, the first: `?.lua` comes
  // before `?/init.lua` in every package.path (audit 78).
  std::optional<std::size_t> atRoot;
  for (auto e = first; e != last; ++e)
    if (e->length == moduleLength(paths_[e->file]) && (!atRoot || isInit(paths_[*atRoot]))) atRoot = e->file;
  std::optional<std::size_t> best;
  std::size_t bestShared = 0;
  bool tie = false;
  for (auto e = first; e != last; ++e) {
    const std::size_t candidate = e->file;
    std::size_t shared = sharedFolders(paths_[candidate], paths_.at(from));
    if (!best || shared > bestShared) {
      best = candidate;
      bestShared = shared;
      tie = false;
    } else if (shared == bestShared) {
      tie = true;
    }
  }
  if (atRoot && (tie || best == atRoot)) return atRoot;
  if (atRoot) return std::nullopt;
  return tie ? std::nullopt : best;
}

namespace {

// A method name a call on a value the analysis does not know (or on what
// another module's function returns) can be taken for a string method by:
// the name alone (gsub, rep, ...) or a pattern argument (match, find).
bool takenForStringMethod(std::string_view method) {
  static const std::set<std::string_view> names = {"byte", "find",    "format", "gmatch", "gsub", "len",
                                                   "lower", "match", "rep",    "reverse", "sub",  "upper"};
  return names.count(method) > 0;
}

}  // namespace

// Adds the call `call` of file `from` to what `to`'s function gets.
void ProjectIndex::addCall(const flow::ModuleCall& call, std::size_t from, IncomingHeat& to,
                           const std::string* as) const {
  flow::ExternalCaller& caller = to[as ? *as : call.member];
  // A call outside loops runs as often as its function, which this file's
  // own loops may call many times (audit 100: `tablex.imap` called once by
  // array2d's map, called from a loop of 400 turns, had "1 runs").
  if (!call.unknownTrips && call.runs > caller.runs) {
    caller.runs = call.runs;
    caller.shortfall = call.shortfall.empty() || call.shortfallElsewhere ? call.shortfall
                                                                         : call.shortfall + ", in " + paths_[from];
    caller.shortfallByBranch = call.shortfallByBranch;
  }
  caller.steadyRuns = std::max(caller.steadyRuns, call.steadyRuns);
  caller.entryCalls = std::min(caller.entryCalls + call.entryCalls, 1L << 40);
  ++caller.calls;
  if (call.behindAbort) ++caller.callsBehindAborts;
  if (call.loopLine > 0 && !call.splitBefore && !call.behindAbort) caller.rootTraceReaches = true;
  // In a loop, a call that may only split the trace before it leaves the
  // loop's trace getting there all the same (audits 69, 72, 80, 97:
  // blacklisted), as `steadyRuns` has it; in a helper, the same call may
  // leave it to a trace that resumes after (audit 107).
  if (!call.behindAbort && (call.loopLine > 0 || !call.splitBefore)) caller.someCallUnsplit = true;
  // The hottest call is named; of equally hot ones, the one sure to run
  // most (audit 108: not a call behind `if i % 50 == 0` when another runs
  // on every pass), then one in a loop (the evidence is at the call), the
  // one whose loops run most, then the first. Whatever order the callers
  // were analyzed in, the same call is named.
  const bool inLoop = call.loopLine > 0;
  const long runs = inLoop && !call.unknownTrips ? call.iterations : 0;
  if (call.heat == flow::Heat::Cold || call.heat < caller.heat) return;
  if (call.heat == caller.heat) {
    if (call.steadyRuns < caller.namedSteady) return;
    if (call.steadyRuns == caller.namedSteady && (!inLoop || (caller.fromLoop && runs <= caller.namedRuns))) return;
  }
  caller.heat = call.heat;
  caller.why = describeCall(call, paths_[from]);
  caller.fromLoop = inLoop;
  caller.namedRuns = runs;
  caller.namedSteady = call.steadyRuns;
}

namespace {

// Whether a call of `member` may call what another file stored in its place
// (`replaced`: the members assigned, "*" for any): the member itself, or,
// for a method of an object a function returns ("new():render"), the
// module table's own member of that name (`function Widget:render()` in
// another file, audit 65: the objects' class is most often that table).
bool replacedCall(const std::set<std::string>& replaced, std::string_view member) {
  if (replaced.empty()) return false;
  if (replaced.count(std::string(member)) || replaced.count("*")) return true;
  const flow::ResultMethod m = flow::ResultMethod::of(member);
  // A class the module table holds: "Button.new():draw" is Button's draw
  // (`function ui.Button:draw()` in another file, audit 67).
  return m.valid() && replaced.count(m.held() + std::string(m.method)) > 0;
}

// Whether the file that makes `call` gave objects of that maker another
// class, or stored under keys it does not name in one (setmetatable(m,
// Chasing) on m = spawning.new(), audit 67): "spawning:new():*" among its
// assigned members. Its calls of their methods may run another class's;
// other files' objects of the same maker are theirs.
bool reclassedBy(const FileLinks& caller, const flow::ModuleCall& call) {
  const flow::ResultMethod m = flow::ResultMethod::of(call.member);
  if (!m.valid() || caller.assignedMembers.empty()) return false;
  const std::string name = call.module + ":" + std::string(m.maker) + "():*";
  return std::find(caller.assignedMembers.begin(), caller.assignedMembers.end(), name) != caller.assignedMembers.end();
}

}  // namespace

std::map<std::size_t, std::set<std::string>> ProjectIndex::replacedMembers(const std::vector<FileLinks>& links) const {
  std::map<std::size_t, std::set<std::string>> out;
  for (std::size_t from = 0; from < links.size() && from < paths_.size(); ++from)
    for (const auto& name : links[from].assignedMembers) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      std::optional<std::size_t> to = resolve(module, from);
      if (to && *to != from) out[*to].emplace(member);
    }
  return out;
}

namespace {

// The method names of a file whose resolution what other files store into
// objects may change: those its own calls resolve, and those of the objects
// its functions return that other files call ("new():paint").
std::set<std::string> methodKeys(const FileLinks& file) {
  std::set<std::string> out(file.resolvedMethods.begin(), file.resolvedMethods.end());
  for (const auto& [member, heat] : file.exports)
    if (const flow::ResultMethod m = flow::ResultMethod::of(member); m.valid()) out.emplace(m.method);
  return out;
}

// Every key some file stores functions under into objects it cannot name
// (FileLinks::methodsStoredOnObjects).
std::set<std::string> storedMethodKeys(const std::vector<FileLinks>& links) {
  std::set<std::string> out;
  for (const auto& file : links) out.insert(file.methodsStoredOnObjects.begin(), file.methodsStoredOnObjects.end());
  return out;
}

}  // namespace

std::optional<std::pair<std::size_t, std::string>> ProjectIndex::inheritedMethod(const std::vector<FileLinks>& links,
                                                                                 std::size_t to,
                                                                                 std::string_view member) const {
  const FileLinks& file = links[to];
  const flow::ResultMethod m = flow::ResultMethod::of(member);
  if (file.classBase.empty() || !m.valid() || file.exports.count(std::string(member))) return {};
  const std::string_view key = m.method;
  if (std::find(file.classMakers.begin(), file.classMakers.end(), m.maker) == file.classMakers.end()) return {};
  // Its own, though the tracker may not have resolved it (Cors:access, with
  // another file's Acl:access stored on Base.extend()'s class).
  if (std::binary_search(file.classFields.begin(), file.classFields.end(), key)) return {};
  // classBase: "base:" for a module's own table, "geometry:Shape." for a class it holds.
  const std::size_t colon = file.classBase.find(':');
  std::optional<std::size_t> base = resolve(std::string_view(file.classBase).substr(0, colon), to);
  if (!base || *base == to || *base >= links.size()) return {};
  return std::make_pair(*base, file.classBase.substr(colon + 1) + std::string(key));
}

std::map<std::size_t, IncomingHeat> ProjectIndex::incoming(const std::vector<FileLinks>& links) const {
  std::map<std::size_t, IncomingHeat> out;
  const std::map<std::size_t, std::set<std::string>> replaced = replacedMembers(links);
  std::optional<std::set<std::string>> storedKeys;  // storedMethodKeys, once asked
  for (std::size_t from = 0; from < links.size() && from < paths_.size(); ++from) {
    for (const auto& call : links[from].calls) {
      std::optional<std::size_t> to = resolve(call.module, from);
      if (!to || *to == from || *to >= links.size()) continue;
      auto exported = links[*to].exports.find(call.member);
      if (exported == links[*to].exports.end()) {
        // A method the subclass's objects inherit from another file's class,
        // unless some file stores a function of that name into objects.
        auto inherited = inheritedMethod(links, *to, call.member);
        if (!inherited || inherited->first == from) continue;
        if (!storedKeys) storedKeys = storedMethodKeys(links);
        const std::string key(flow::ResultMethod::of(call.member).method);
        if (storedKeys->count(key) || storedKeys->count(std::string(flow::ValueMap::kAnyMethod))) continue;
        auto reached = links[inherited->first].exports.find(inherited->second);
        if (reached == links[inherited->first].exports.end() || call.heat <= reached->second) continue;
        if (auto r = replaced.find(*to); r != replaced.end() && replacedCall(r->second, call.member)) continue;
        if (auto r = replaced.find(inherited->first); r != replaced.end() && replacedCall(r->second, inherited->second))
          continue;
        if (reclassedBy(links[from], call)) continue;
        addCall(call, from, out[inherited->first], &inherited->second);
        continue;
      }
      if (call.heat <= exported->second) continue;
      if (auto r = replaced.find(*to); r != replaced.end() && replacedCall(r->second, call.member)) continue;
      if (reclassedBy(links[from], call)) continue;
      addCall(call, from, out[*to]);
    }
  }
  return out;
}

IncomingHeat ProjectIndex::incomingFrom(const std::vector<std::size_t>& callers, const std::vector<FileLinks>& links,
                                        std::size_t to, const std::map<std::string, flow::Heat>* own) const {
  IncomingHeat out;
  // A file that assigns a member of `to`'s module table requires it: one of the callers.
  std::set<std::string> replaced;
  for (std::size_t from : callers)
    if (from < links.size() && from < paths_.size())
      for (const auto& name : links[from].assignedMembers) {
        auto [module, member] = flow::ModuleMemberName::parse(name);
        if (resolve(module, from) == to) replaced.emplace(member);
      }
  for (std::size_t from : callers) {
    if (from >= links.size() || from >= paths_.size()) continue;
    for (const auto& call : links[from].calls) {
      if (resolve(call.module, from) != to) continue;
      if (replacedCall(replaced, call.member) || reclassedBy(links[from], call)) continue;
      if (own) {
        auto exported = own->find(call.member);
        if (exported == own->end() || call.heat <= exported->second) continue;
      }
      addCall(call, from, out);
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> ProjectIndex::callersOf(const std::vector<std::vector<std::string>>& required) const {
  std::vector<std::vector<std::size_t>> callers(paths_.size());
  for (std::size_t from = 0; from < required.size() && from < paths_.size(); ++from)
    for (const auto& name : required[from]) {
      std::optional<std::size_t> to = resolve(name, from);
      if (to && *to != from && (callers[*to].empty() || callers[*to].back() != from)) callers[*to].push_back(from);
    }
  return callers;
}

// A method the file `from` defines again over another module's class
// ("shape:outline"): that module's `self:outline()` may call it, and so
// may the module's own base class's, when that class inherits from a third
// module's (FileLinks::classBase: Ring over Circle over Shape, audit 67).
void ProjectIndex::overrideUpwards(const std::vector<FileLinks>& links, std::size_t from, std::string name,
                                   std::map<std::size_t, ModuleImports>& out) const {
  constexpr int kMaxInheritance = 8;  // as the value tracker's chains in one file
  for (int depth = 0; depth < kMaxInheritance; ++depth) {
    auto [module, memberView] = flow::ModuleMemberName::parse(name);
    const std::string member(memberView);
    std::optional<std::size_t> to = resolve(module, from);
    if (!to || *to == from || *to >= links.size()) return;
    // Only where the module's own calls resolve that method (`self:m()`):
    // elsewhere it changes nothing, and an import costs an analysis.
    const std::string key = member.substr(member.find('.') == std::string::npos ? 0 : member.find('.') + 1);
    const auto& resolved = links[*to].resolvedMethods;
    if (std::binary_search(resolved.begin(), resolved.end(), key))
      if (!out[*to].overriddenMethods.emplace(member).second) return;  // known already: so are its bases
    if (member.find('.') != std::string::npos || links[*to].classBase.empty()) return;
    name = links[*to].classBase + member;
    from = *to;
  }
}

// A file that stores functions under keys it does not name into objects it
// is handed, or gives them any class (`obj[name] = fn`, `fsm.transition(npc,
// Walking)`: ValueMap::kAnyMethod, audit 69), may change any method of the
// objects a file that calls it hands over: the caller's own objects, and
// those of the modules it calls.
void ProjectIndex::storedAnyMethod(const std::vector<FileLinks>& links, std::size_t from,
                                   const std::map<std::string_view, std::vector<std::size_t>>& storers,
                                   const std::vector<std::set<std::string>>& keys,
                                   std::map<std::size_t, ModuleImports>& out) const {
  auto any = storers.find(flow::ValueMap::kAnyMethod);
  if (any == storers.end()) return;
  const std::vector<std::size_t>& helpers = any->second;
  // The file itself stores any method (`getmetatable(Echo).__index = Fast`):
  // into the objects of the modules it calls, as a helper it calls would.
  bool handsOver = std::find(helpers.begin(), helpers.end(), from) != helpers.end();
  for (const auto& name : links[from].memberCalls) {
    std::optional<std::size_t> to = resolve(flow::ModuleMemberName::parse(name).module, from);
    if (to && *to != from && std::find(helpers.begin(), helpers.end(), *to) != helpers.end()) handsOver = true;
  }
  if (!handsOver) return;
  const std::string anyKey(flow::ValueMap::kAnyMethod);
  if (!keys[from].empty()) out[from].methodsStoredElsewhere.insert(anyKey);
  for (const auto& name : links[from].memberCalls) {
    std::optional<std::size_t> to = resolve(flow::ModuleMemberName::parse(name).module, from);
    if (to && *to != from && *to < links.size() && !keys[*to].empty()) out[*to].methodsStoredElsewhere.insert(anyKey);
  }
  // Its class, handed over (a mixin copied in), may define any method again
  // over the classes it inherits from (audit 73: `mixin.include(Acl, Fast)`
  // with Acl over Base; Base:run's self:access() ran Fast's).
  constexpr int kMaxInheritance = 8;
  std::size_t cls = from;
  for (int depth = 0; depth < kMaxInheritance && !links[cls].classBase.empty(); ++depth) {
    const std::string& base = links[cls].classBase;
    std::optional<std::size_t> up = resolve(std::string_view(base).substr(0, base.find(':')), cls);
    if (!up || *up == cls || *up >= links.size()) break;
    if (!keys[*up].empty()) out[*up].methodsStoredElsewhere.insert(anyKey);
    cls = *up;
  }
}

std::map<std::size_t, ModuleImports> ProjectIndex::moduleImports(const std::vector<FileLinks>& links) const {
  std::map<std::size_t, ModuleImports> out;
  // By key, the files that store functions under it into objects they cannot name.
  std::map<std::string_view, std::vector<std::size_t>> storers;
  for (std::size_t from = 0; from < links.size(); ++from)
    for (const auto& key : links[from].methodsStoredOnObjects) storers[key].push_back(from);
  // By file, the method names what others store could change (methodKeys).
  std::vector<std::set<std::string>> keys(links.size());
  if (!storers.empty())
    for (std::size_t i = 0; i < links.size(); ++i) keys[i] = methodKeys(links[i]);
  // What other files replace: a member another file assigns, or a whole
  // module a file stores in package.loaded or package.preload.
  const std::map<std::size_t, std::set<std::string>> replaced = replacedMembers(links);
  std::set<std::size_t> loadedInPlace;
  auto loadInPlace = [&](std::string_view name, std::size_t from) {
    if (std::optional<std::size_t> to = resolve(name, from); to && *to != from && *to < links.size()) {
      loadedInPlace.insert(*to);
      out[*to].loadedInPlace = true;
    }
  };
  for (std::size_t from = 0; from < links.size() && from < paths_.size(); ++from)
    for (const auto& name : links[from].modulesLoadedInPlace) {
      if (name != flow::ValueMap::kAnyMethod) {
        loadInPlace(name, from);
        continue;
      }
      // Under a name it is handed (`testkit.stub("logger", impl)`, audit
      // 73): every module a caller of its functions names to them.
      for (std::size_t caller = 0; caller < links.size() && caller < paths_.size(); ++caller)
        for (const auto& [module, passed] : links[caller].namesPassed)
          if (module.empty() ? caller == from : resolve(module, caller) == from) loadInPlace(passed, caller);
    }
  for (std::size_t from = 0; from < links.size() && from < paths_.size(); ++from) {
    for (const auto& name : links[from].membersBeforeLoopCalls) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      std::optional<std::size_t> to = resolve(module, from);
      if (!to || *to == from || *to >= links.size()) continue;
      auto aborting = links[*to].abortingExports.find(std::string(member));
      if (aborting == links[*to].abortingExports.end()) continue;
      out[from].abortingMembers.insert(name);
      MaskingSite site = aborting->second;
      site.path = paths_[*to];
      out[from].abortSites.emplace(name, std::move(site));
    }
    for (const auto& name : links[from].memberCalls) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      if (!flow::ModuleMemberName{module, member}.isMethodOfResult()) continue;
      if (!takenForStringMethod(member.substr(member.rfind(':') + 1))) continue;
      std::optional<std::size_t> to = resolve(module, from);
      if (to && *to != from && *to < links.size() && links[*to].exports.count(std::string(member)))
        out[from].luaMethods.insert(name);
    }
    // The methods of what a module function this file calls returns, as
    // that module defines them ("new():gsub" for Matcher.new()), among the
    // names the values this file reads take for string methods by the name
    // alone (audit 60): such a call is never one of its "module:new():gsub"
    // calls above.
    for (const auto& name : links[from].memberCalls) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      if (member.find('(') != std::string_view::npos) continue;
      std::optional<std::size_t> to = resolve(module, from);
      if (!to || *to == from || *to >= links.size()) continue;
      const std::string prefix = std::string(member) + "():";
      const auto& exports = links[*to].exports;
      for (auto it = exports.lower_bound(prefix); it != exports.end() && it->first.compare(0, prefix.size(), prefix) == 0;
           ++it)
        if (flow::onlyStringsHave(std::string_view(it->first).substr(prefix.size())))
          out[from].luaMethods.insert(std::string(module) + ":" + it->first);
    }
    for (const std::string& key : keys[from])
      if (auto it = storers.find(key); it != storers.end() && (it->second.size() > 1 || it->second.front() != from))
        out[from].methodsStoredElsewhere.insert(key);
    storedAnyMethod(links, from, storers, keys, out);
    for (const auto& name : links[from].overridingMembers) overrideUpwards(links, from, name, out);
    // A method stored into an object a module function returned
    // ("account:new():withdraw", `function Special:withdraw()` on Special =
    // Account:new(), Programming in Lua's subclass; "base:extend():access"):
    // defined again over the module's class.
    for (const auto& name : links[from].assignedMembers) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      const flow::ResultMethod m = flow::ResultMethod::of(member);
      if (!m.valid() || m.method == "*") continue;
      overrideUpwards(links, from, std::string(module) + ":" + m.held() + std::string(m.method), out);
    }
    for (const auto& name : links[from].membersBeforeRefused) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      std::optional<std::size_t> to = resolve(module, from);
      if (!to || *to == from || *to >= links.size() || !links[*to].inlinedExports.count(std::string(member))) continue;
      // Not what another file stores in its place (audit 73: a patched
      // Vec.new that stitches, a stubbed module).
      if (loadedInPlace.count(*to)) continue;
      if (auto r = replaced.find(*to); r != replaced.end() && replacedCall(r->second, member)) continue;
      out[from].inlinedMembers.insert(name);
    }
    for (const auto& name : links[from].membersBehindAborts) {
      auto [module, member] = flow::ModuleMemberName::parse(name);
      std::optional<std::size_t> to = resolve(module, from);
      if (to && *to != from && *to < links.size() && links[*to].loopingExports.count(std::string(member)))
        out[from].loopingMembers.insert(name);
    }
    for (const auto& call : links[from].calls) {
      std::optional<std::size_t> to = resolve(call.module, from);
      if (!to || *to == from || *to >= links.size()) continue;
      auto exported = links[*to].constructors.find(call.member);
      if (exported == links[*to].constructors.end()) continue;
      flow::CtypeConstructor c = exported->second;
      c.definedIn = paths_[*to];
      out[from].constructors.emplace(call.module + ":" + call.member, std::move(c));
    }
    for (const auto& name : links[from].memberCalls) {
      auto [module, memberView] = flow::ModuleMemberName::parse(name);
      std::optional<std::size_t> to = resolve(module, from);
      if (!to || *to == from || *to >= links.size()) continue;
      const std::string member(memberView);
      if (auto returned = links[*to].returnedBuiltins.find(member); returned != links[*to].returnedBuiltins.end())
        out[from].returnedBuiltins.emplace(name, returned->second);
      if (auto tail = links[*to].tailCalls.find(member); tail != links[*to].tailCalls.end()) {
        flow::TailCalledBuiltin t = tail->second;
        t.definedIn = paths_[*to];
        out[from].tailCalls.emplace(name, std::move(t));
      }
      auto exported = links[*to].registrars.find(member);
      if (exported == links[*to].registrars.end()) continue;
      flow::CtypeRegistrar r = exported->second;
      r.definedIn = paths_[*to];
      out[from].registrars.emplace(name, std::move(r));
    }
  }
  return out;
}

}  // namespace ljcheck
