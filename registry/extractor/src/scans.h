// The scans the extractor runs over a LuaJIT source tree, one per file of
// this folder. Each reads one kind of fact and throws ExtractError naming the
// source file when that file does not hold it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ljcheck/extractor.h"
#include "source_tree.h"
#include "translation_unit.h"

namespace ljcheck::extractor {

// trace_errors.cpp: TREDEF(name, message) rows of lj_traceerr.h, in code order.
std::vector<TraceErrorDef> scanTraceErrors(const SourceTree& tree);

// bytecodes.cpp: BCDEF(_) rows of lj_bc.h with their operand modes, in opcode order.
std::vector<BytecodeDef> scanBytecodes(const SourceTree& tree);

// params.cpp: JIT_PARAMDEF defaults and the optimizations on by default
// (JIT_F_OPT_DEFAULT over JIT_F_OPTSTRING), both from lj_jit.h, and the hot
// counters' constants (lj_dispatch.h HOTCOUNT_*, lj_jit.h PENALTY_*).
struct JitDefaults {
  std::vector<JitParam> params;
  std::vector<std::string> flags;
  std::vector<JitParam> hotCounters;
};
JitDefaults scanJitDefaults(const SourceTree& tree);

// version.cpp: luajit.h and lj_arch.h as the parser's target sees them.
struct BuildIdentity {
  std::string version;
  std::int64_t versionNum = 0;
  bool openresty = false;
  std::string arch, os;
  bool gc64 = false;
};
BuildIdentity scanBuildIdentity(const SourceTree& tree);

// library_order.cpp: the lib_*.c files in the order src/Makefile hands them
// to buildvm (LJLIB_O), which numbers the fast functions in that order.
std::vector<std::string> libraryFiles(const SourceTree& tree);

// fast_functions.cpp: the LJLIB_* annotations of the library files, read as
// buildvm reads them. Functions are numbered from ffid 2 on.
struct LibraryFunction {
  std::string cName;     // as in the annotation: string_gmatch_aux (FF_string_gmatch_aux)
  std::string name;      // as jit.vmdef.ffnames spells it: string.gmatch_aux
  std::string recorder;  // LJLIB_REC's handler; "" when none
  std::string file;
  unsigned line = 0;
};
class FastFunctionScan {
 public:
  // Reads one library file's annotations; returns how many it held.
  std::size_t scan(const TranslationUnit& unit);
  const std::vector<LibraryFunction>& functions() const { return functions_; }
  // lj_ffdef.h as buildvm writes it: FFDEF(name) per fast function.
  std::string ffdefHeader() const;

 private:
  std::vector<LibraryFunction> functions_;
  std::string module_;  // like buildvm's, it carries over from one file to the next
};

// c_functions.cpp: library functions registered with luaL_register (plain C
// functions without an ffid, e.g. require), in registration order.
std::vector<std::string> scanRegisteredCFunctions(const TranslationUnit& unit);

// returned_functions.cpp: library functions that create and return another
// fast function's closure with lj_lib_pushcc (string.gmatch -> string.gmatch_aux).
struct ReturnedFunction {
  std::string function;  // C name as in the annotation: string_gmatch
  std::string returns;   // string_gmatch_aux
};
std::vector<ReturnedFunction> scanReturnedFastFunctions(const TranslationUnit& unit);

// recorder_refusals.cpp: which bytecodes lj_record_ins sends to NYIBC (by
// case label; `default` covers every bytecode without one), and which fast
// functions recff_nyi never stitches (by FF_ name).
std::vector<std::string> scanNyiBytecodes(const TranslationUnit& record, const std::vector<BytecodeDef>& bytecodes);
std::vector<std::string> scanNeverStitch(const TranslationUnit& ffrecord);

// recorder_errors.cpp: per function defined in the given units, the trace
// errors (LJ_TRERR_ names without the prefix) it raises itself or through
// functions defined in those units. Keyed by function name; only functions
// named recff_* are returned.
std::map<std::string, std::set<std::string>> scanRecorderErrors(const std::vector<const TranslationUnit*>& units);

// compile_check.cpp: throws ExtractError when `unit` has parser errors other
// than names buildvm's generated headers declare (FF_<name> for one of
// `fastFunctions`, given by C name; lj_lib_init_*, lj_lib_cf_*; recff_idmap,
// recff_func).
void requireCompiles(const TranslationUnit& unit, const std::set<std::string>& fastFunctions);

// switch_regions.cpp: the case labels of a switch statement and whether the
// code each label runs, up to a top-level break or return, contains a match.
struct SwitchLabel {
  std::string name;  // the referenced constant: BC_UCLO; "default" for default
  bool matches = false;
};
std::vector<SwitchLabel> switchLabels(CXCursor switchStmt, const std::function<bool(CXCursor)>& isMatch);
// All switch statements inside a function body.
std::vector<CXCursor> switchStatements(CXCursor function);
// The trace error code of a call to lj_trace_err/lj_trace_err_info: "NYIBC";
// "" when the cursor is not such a call or its code is not a constant.
std::string traceErrorRaised(CXCursor call);

}  // namespace ljcheck::extractor
