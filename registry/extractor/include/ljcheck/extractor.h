// The recorder-profile extractor: reads a LuaJIT source tree with libclang
// (trace errors, bytecodes, fast functions and their recorders, what the
// recorder refuses, JIT parameters, version) and writes the recorder profile
// the registry loads, as deterministic JSON.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ljcheck/profile.h"

namespace ljcheck::extractor {

// A fact the extractor could not read: names the file (relative to the
// tree's src/, or the overlay's path) and what was missing or malformed.
class ExtractError : public std::runtime_error {
 public:
  ExtractError(std::string file, const std::string& what)
      : std::runtime_error(file + ": " + what), file_(std::move(file)) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

struct FastFunction {
  std::string name;                 // as jit.vmdef.ffnames spells it
  std::string recorder;             // recff_<recorder> records it; empty: none (recff_nyi)
  std::vector<std::string> errors;  // trace errors its recorder can raise, in code order
  bool recorded() const { return !recorder.empty(); }
};

struct JitParam {
  std::string name;
  std::int64_t value = 0;
};

// Everything a profile file holds, in the order it is written.
struct ExtractedProfile {
  std::string name;
  std::string description;
  std::string generatedBy;  // the tool and the overlay, never a path or a time
  std::string version;      // LUAJIT_VERSION, as jit.version
  std::int64_t versionNum = 0;
  bool openresty = false;  // luajit.h defines OPENRESTY_LUAJIT
  std::string arch, os;    // LJ_ARCH_NAME, LJ_OS_NAME, as jit.arch and jit.os
  bool gc64 = false;
  std::vector<std::string> jitFlags;  // optimizations on by default, as jit.status() lists them
  std::vector<TraceErrorDef> traceErrors;
  std::vector<BytecodeDef> bytecodes;
  std::vector<FastFunction> fastFunctions;  // index = ffid; 0 "Lua", 1 "C"
  std::vector<std::string> nyiBytecodes;    // lj_record_ins refuses them with NYIBC; bytecode order
  std::vector<std::string> neverStitch;     // recff_nyi never stitches them; ffid order
  std::vector<JitParam> params;             // JIT_PARAMDEF order
  // The hot counters and the penalty that blacklists a trace start
  // (lj_dispatch.h HOTCOUNT_*, lj_jit.h PENALTY_*), by the profile's names.
  std::vector<JitParam> hotCounters;
  std::vector<std::string> cFunctions;      // plain C library functions (luaL_register)
  std::vector<std::pair<std::string, std::string>> returnsFunction;  // from the overlay
  // By recorder name (recff_<name>): the trace errors it can raise, itself or
  // through the helpers it calls in the recorder, IR and narrowing sources.
  std::map<std::string, std::vector<std::string>> recorderErrors;
};

struct ExtractOptions {
  std::string luajitSrc;    // a LuaJIT tree (holding src/) or its src/ folder
  std::string name;         // short profile name; overrides the overlay's
  std::string overlayPath;  // hand-written facts; "" for none
};

// Reads the tree and applies the overlay. Throws ExtractError.
ExtractedProfile extractProfile(const ExtractOptions& options);

// Adds a hand-written overlay's facts (JSON; see registry/overlays/) to an
// extracted profile. Throws ExtractError naming the overlay file when it is
// malformed, an entry gives no reason, or it names what the build lacks.
void applyOverlay(const std::string& overlayPath, ExtractedProfile& profile);

// The profile file: fixed key order, 2-space indent, one list entry a line.
std::string toJson(const ExtractedProfile& profile);

// Writes to a temporary file beside `path`, then renames it over `path`, so
// an error never leaves half a file. Throws ExtractError.
void writeFileAtomically(const std::string& path, const std::string& text);

}  // namespace ljcheck::extractor
