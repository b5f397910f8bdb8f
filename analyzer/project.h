// The project-wide call graph: which file `require("a.b")` loads, what each
// file exports in its module table, and how hot other files call it. Lint
// analyzes the files that require a module before it (project_order.h), so
// that it knows their heat; a file whose exported functions other files
// still call otherwise than its analysis assumed (a cycle of requires, a
// caller analyzed again) is analyzed again with that heat.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flow/call_graph.h"
#include "flow/ctype_registrars.h"
#include "flow/metatypes.h"
#include "flow/tail_calls.h"
#include "ljcheck/prediction.h"

namespace ljcheck {

// A regular file as one read of it found it: a later read that finds the
// same device, inode, size and modification time reads the same text.
struct FileStamp {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t modifiedSeconds = 0, modifiedNanoseconds = 0;
  bool operator==(const FileStamp& o) const {
    return device == o.device && inode == o.inode && size == o.size && modifiedSeconds == o.modifiedSeconds &&
           modifiedNanoseconds == o.modifiedNanoseconds;
  }
};

// What one file shows the project: the functions its module table exports
// and its calls into other modules.
struct FileLinks {
  // member -> its heat as this file's analysis finds it without other files' calls
  std::map<std::string, flow::Heat> exports;
  std::vector<flow::ModuleCall> calls;
  // Members of its module table that are ctypes with a `__new` metamethod.
  std::map<std::string, flow::CtypeConstructor> constructors;
  // Members of its module table that register ctypes by name (ctype_registrars.h).
  std::map<std::string, flow::CtypeRegistrar> registrars;
  // Every "module:member" it calls, hot or not (registrations run at load).
  std::vector<std::string> memberCalls;
  // The bytecode dump of a file with exports, kept so that analyzing it
  // again with other files' heat need not compile it again.
  std::string dump;
  // Exported functions that return a library function, by member: "lines"
  // -> "string.gmatch_aux" for `function M.lines(s) return s:gmatch(...) end`.
  std::map<std::string, std::string> returnedBuiltins = {};
  // Exported functions that tail-call an unrecorded library function, by member.
  std::map<std::string, flow::TailCalledBuiltin> tailCalls = {};
  // Exported functions that run a loop (CallGraph::runsLoop), by member.
  std::set<std::string> loopingExports = {};
  // The "module:member"s it calls between a masked site and the abort that
  // masks it (rules/members_behind_aborts.h): those that run a loop end the
  // masking.
  std::set<std::string> membersBehindAborts = {};
  // Exported functions every trace through which aborts before it returns
  // (rules/aborting_call_before.h certainAbortLine), by member: a loop's
  // trace that calls one aborts in it, and never records a call after it.
  // Each with where it aborts (the path left empty: the importer names it).
  std::map<std::string, MaskingSite> abortingExports = {};
  // The "module:member"s it calls in a loop body: when one of them is an
  // aborting export, a later call of another module's function there does
  // not count its runs towards blacklisting, and a site after it in the
  // body is masked (its imports: ModuleImports::abortingMembers).
  std::set<std::string> membersBeforeLoopCalls = {};
  // A file whose dump is kept (none for a dump given as input) is mapped to
  // its source (ranges, allow comments) only after its last analysis, once,
  // after the rounds (mapKeptSources), from the file read again: its text is
  // not held in memory meanwhile. How the first read found the file, so that
  // one changed in between is told apart.
  std::optional<FileStamp> mapLater = std::nullopt;
  // Every "module:member" it assigns (`codec.encode = function ... end`,
  // rawset(codec, "encode", f); "module:*" for a key it does not name):
  // what the module defines under that name may never run.
  std::vector<std::string> assignedMembers = {};
  // Every "module:member" its classes define again over that module's
  // class they inherit from (ValueMap::overridesOfOtherModules).
  std::vector<std::string> overridingMembers = {};
  // The keys it stores functions under into objects it cannot name
  // (ValueMap::methodsStoredOnObjects), and the names of the methods its
  // calls resolve to its own functions (ValueMap::resolvedMethodNames):
  // another file's object may carry a function stored by this file instead.
  std::vector<std::string> methodsStoredOnObjects = {};
  std::vector<std::string> resolvedMethods = {};
  // The other module's class its module table inherits from
  // (ValueMap::baseOfModuleClass): what other files' subclasses of it
  // define again is defined again over that class too.
  std::string classBase = {};
  // The module names it stores a value under in package.loaded or
  // package.preload (ValueMap::modulesLoadedInPlace).
  std::vector<std::string> modulesLoadedInPlace = {};
  // Exported functions a trace records inline (rules::recordedInline) that
  // abort no trace either: a call of one splits no caller's trace.
  std::set<std::string> inlinedExports = {};
  // The "module:member"s it calls before an instruction the recorder
  // refuses in the same function: the calls whose splitting matters.
  std::set<std::string> membersBeforeRefused = {};
  // Its exported functions that return objects of its module table's class
  // (ValueMap::makersOfModuleObjects): a method those objects lack, called
  // from another file, is the base class's (classBase).
  std::vector<std::string> classMakers = {};
  // The keys it stores into its module table (ValueMap::moduleFieldNames):
  // a method of that name is the class's own, not its base's.
  std::vector<std::string> classFields = {};
  // Constant strings it passes to functions of the project, with the
  // module called ("" for its own): the modules a helper that stores
  // package.loaded[name] may stub (ValueMap::namesPassed).
  std::vector<std::pair<std::string, std::string>> namesPassed = {};
};

// Heats other files give a file's exported functions, by member name.
using IncomingHeat = std::map<std::string, flow::ExternalCaller>;
// What a file takes from other files' module tables, by "module:member":
// ctypes with a `__new` metamethod it calls, functions that register ctypes
// by name it calls, and the library functions the functions it calls return
// (FileLinks::returnedBuiltins) or tail-call unrecorded (FileLinks::tailCalls),
// and which of them run a loop (FileLinks::loopingExports: a call of one ends
// masking, rules/masking.h). A file that has some is analyzed again knowing them.
struct ModuleImports {
  std::map<std::string, flow::CtypeConstructor> constructors;
  std::map<std::string, flow::CtypeRegistrar> registrars;
  flow::ValueMap::ImportedReturns returnedBuiltins = {};
  flow::ImportedTailCalls tailCalls = {};
  flow::MemberNames loopingMembers = {};
  // The "module:member"s it calls every trace through which aborts (FileLinks::abortingExports),
  // and where each aborts (for maskedBy).
  flow::MemberNames abortingMembers = {};
  std::map<std::string, MaskingSite, std::less<>> abortSites = {};
  // The "module:f():m"s it calls whose module defines them in Lua
  // (FileLinks::exports): not the string methods a pattern argument would
  // otherwise make `match`, `find`, `gsub` or `gmatch` (rules/split_finding.h).
  flow::MemberNames luaMethods = {};
  // The members of its own module table that other files' classes which
  // inherit from it define again (FileLinks::overridingMembers): `self:m()`
  // in its methods may call theirs.
  flow::MemberNames overriddenMethods = {};
  // The names of its classes' methods that other files store functions
  // under into objects they cannot name (FileLinks::methodsStoredOnObjects):
  // an object of its classes may run such a function instead, and a call of
  // that method from another file does not make its own hot.
  flow::MemberNames methodsStoredElsewhere = {};
  // Another file stores a value under its module name in package.loaded or
  // package.preload (a test's stub): a require may never run this file, so
  // other files' calls give its functions no heat.
  bool loadedInPlace = false;
  // The "module:member"s it calls that their file records inline
  // (FileLinks::inlinedExports).
  flow::MemberNames inlinedMembers = {};
};

class ProjectIndex {
 public:
  struct Entry {  // a module name, as `names_` holds it, and a file it may load
    std::size_t offset = 0, length = 0;
    std::size_t file = 0;
  };
  // The files as reports show them (relative to the root, or absolute);
  // the caller keeps them for the index's lifetime.
  explicit ProjectIndex(const std::vector<std::string>& paths);
  // The file `require(module)` loads, seen from the file `from`: one whose
  // path ends in a/b.lua or a/b/init.lua (package.path is not known); of
  // several, the one that shares the most folders with `from`, when one does.
  std::optional<std::size_t> resolve(std::string_view module, std::size_t from) const;
  // For every file, the hottest call into each of its exported functions,
  // where that is hotter than the file's own analysis made the function.
  std::map<std::size_t, IncomingHeat> incoming(const std::vector<FileLinks>& links) const;
  // The same for file `to` from the files `callers` alone, for the first
  // pass in callers-first order: with `own`, the heat of each exported
  // function of `to` as its analysis finds it without other files' calls,
  // the calls that `incoming` counts; without, every call into `to`.
  IncomingHeat incomingFrom(const std::vector<std::size_t>& callers, const std::vector<FileLinks>& links,
                            std::size_t to, const std::map<std::string, flow::Heat>* own) const;
  // By file: the files that require it (`required[i]`: the module names file
  // i requires, required_modules.h), each once.
  std::vector<std::vector<std::size_t>> callersOf(const std::vector<std::vector<std::string>>& required) const;
  // For every file that calls one, the ctypes with `__new`, the registering
  // functions and the functions returning library functions it reaches
  // through another file's module table.
  std::map<std::size_t, ModuleImports> moduleImports(const std::vector<FileLinks>& links) const;

 private:
  const std::vector<std::string>& paths_;
  // Module names each file can be loaded under ("a.b.c", "b.c", "c" for
  // a/b/c.lua; "a.b", "b" for a/b/init.lua), to the files that can be: the
  // names one after another in `names_`, the entries sorted by name, then
  // file, and a hash of the names for the look-ups (no allocation per look-up).
  std::string names_;
  std::vector<Entry> byModule_;
  // Each name, as a view into `names_`, to its entries: [first, last) in byModule_.
  std::unordered_map<std::string_view, std::pair<std::size_t, std::size_t>> ranges_;
  std::string_view nameOf(const Entry& e) const;
  // `as`: the member of `to`'s file the call reaches, when not call.member
  // (a method a subclass's objects inherit: inheritedMethod).
  void addCall(const flow::ModuleCall& call, std::size_t from, IncomingHeat& to,
               const std::string* as = nullptr) const;
  // The file and member a call of `member` ("new():access") of file `to`
  // reaches when the objects its maker returns are of a class that lacks the
  // method and inherits from another module's class (audits 69, 72: a
  // Kong-style handler's echo:access(ctx) runs base.lua's Base.access).
  std::optional<std::pair<std::size_t, std::string>> inheritedMethod(const std::vector<FileLinks>& links,
                                                                     std::size_t to, std::string_view member) const;
  // Into out[...].overriddenMethods: the member `name` ("module:member")
  // that file `from` defines again, for its module and up its base classes.
  void overrideUpwards(const std::vector<FileLinks>& links, std::size_t from, std::string name,
                       std::map<std::size_t, ModuleImports>& out) const;
  // Into out[...].methodsStoredElsewhere: "*" for file `from` and the
  // modules it calls, when it calls a module that stores any method into
  // objects (`storers`: by key, the files that store under it).
  // `keys`: by file, the method names what others store could change.
  void storedAnyMethod(const std::vector<FileLinks>& links, std::size_t from,
                       const std::map<std::string_view, std::vector<std::size_t>>& storers,
                       const std::vector<std::set<std::string>>& keys,
                       std::map<std::size_t, ModuleImports>& out) const;
  // By file: the members of its module table other files assign
  // (FileLinks::assignedMembers). Calls of them may call the replacement,
  // and give the file's own function no heat.
  std::map<std::size_t, std::set<std::string>> replacedMembers(const std::vector<FileLinks>& links) const;
};

}  // namespace ljcheck
