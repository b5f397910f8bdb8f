// Recorder profiles: one LuaJIT build as the trace recorder sees it. Loaded
// from the registry's data files; the same facts are read from a live VM by
// the runtime collector, which computes the same id.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ljcheck {

struct BytecodeDef {
  std::string name;
  std::string a, b, cd, mm;  // operand modes as in lj_bc.h (none, dst, base, var, ...)
};

struct TraceErrorDef {
  std::string name;     // TREDEF name: NYIBC
  std::string message;  // printf format: "NYI: bytecode %d"
};

struct FastFunctionDef {
  std::string name;      // as jit.vmdef.ffnames spells it
  std::string recorder;  // empty: no recorder, calls stitch or end the trace
  bool recorded() const { return !recorder.empty(); }
};

// The facts the profile id is computed from. The runtime fills them from the
// live VM's jit.vmdef and jit.status().
struct ProfileFacts {
  std::string version;  // jit.version
  std::string arch;     // jit.arch
  std::string os;       // jit.os
  std::vector<std::string> jitFlags;  // optimization flags of jit.status(), CPU features excluded
  std::vector<std::string> bytecodeNames;
  std::vector<std::string> fastFunctionNames;
  std::vector<std::string> traceErrorMessages;
};

// Joins the facts into an id such as
// `LuaJIT-2.1.0-beta3/x64/Linux/jit-1a2b3c4d/bc-…/ff-…/te-…`.
std::string computeProfileId(const ProfileFacts& facts);

struct RecorderProfile {
  std::string name;  // short name: debian-2.1-20220320
  std::string id;    // computed from the facts
  bool supported = false;
  std::string description;
  std::string version;
  int versionNum = 0;
  bool openresty = false;
  std::string arch, os;
  bool gc64 = true;
  std::vector<std::string> jitFlags;
  std::vector<TraceErrorDef> traceErrors;
  std::vector<BytecodeDef> bytecodes;
  std::vector<FastFunctionDef> fastFunctions;  // index = ffid
  std::set<std::string> nyiBytecodes;          // refused by lj_record_ins: UCLO, FNEW
  std::set<std::string> neverStitch;           // error, debug.sethook, jit.flush
  std::map<std::string, std::int64_t> params;  // JIT_PARAMDEF defaults
  // The hot counters and the penalty that blacklists a trace start, from
  // lj_dispatch.h and lj_jit.h: loopStep, callStep (HOTCOUNT_LOOP/CALL),
  // counters (HOTCOUNT_SIZE), penaltyMin, penaltyMax, penaltySlots,
  // penaltyRandomBits. Empty in a profile without them.
  std::map<std::string, std::int64_t> hotCounters;
  // Standard-library functions that are plain C functions (lua_CFunction, no
  // fast-function id): every call stitches as STITCH:C.
  std::set<std::string> cFunctions;
  // Library functions that return a function, and which one (by ffname, or
  // "C" for a plain C function): string.gmatch -> string.gmatch_aux.
  std::map<std::string, std::string> returnsFunction;
  // By recorder (recff_<name>, plus the helpers they share): the trace
  // errors it can raise.
  std::map<std::string, std::vector<std::string>> recorderErrors;

  // Derived by index(): fast functions by the hash of their name (indices
  // into fastFunctions, the first of a name first; a lookup compares the
  // name), and the library tables ("string", "jit", "jit.util") that hold
  // fast or C functions.
  std::unordered_multimap<std::size_t, std::size_t> fastFunctionIndex;
  std::set<std::string, std::less<>> libraryTables;

  static RecorderProfile fromJson(std::string_view text);  // throws std::runtime_error; indexed
  // Builds the derived lookups above from the lists; call after changing them.
  void index();
  // Whether `name` is a table of library functions: string, jit.util.
  bool isLibraryTable(std::string_view name) const;
  ProfileFacts facts() const;

  std::vector<std::string> bytecodeNames() const;
  const FastFunctionDef* fastFunction(std::string_view name) const;
  std::optional<int> traceErrorCode(std::string_view name) const;
  std::int64_t param(std::string_view name, std::int64_t fallback) const;
  // How many runs of a loop whose trace aborts every time blacklist its
  // start, whatever the penalty's random bits: `runs` iterations, `aborts`
  // aborts. Zero when the profile lacks the hot-counter constants.
  struct Blacklisting {
    long runs = 0;
    int aborts = 0;
    // With the random bits all zero: fewer runs never blacklist it, and
    // between this and `runs` the random bits decide.
    long fewestRuns = 0;
  };
  Blacklisting loopBlacklisting() const;
  // The same for a function's entry, whose counter each call (interpreted)
  // counts down by callStep instead of loopStep: twice the runs on 2.1.
  Blacklisting entryBlacklisting() const;

 private:
  Blacklisting blacklisting(const char* stepKey) const;
};

// The profiles compiled into the registry library, in a stable order.
const std::vector<RecorderProfile>& builtinProfiles();
// By short name or by id; null when the registry does not hold it.
const RecorderProfile* findProfile(std::string_view nameOrId);
// The profile of the LuaJIT this binary embeds (the default for lint).
const RecorderProfile& defaultProfile();

}  // namespace ljcheck
