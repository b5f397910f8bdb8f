// The C trace handler attached with jit.attach(handler, "trace"). It turns the
// VM's events into TraceEvents:
//   "start": records (pc, parent, exitno) and the start function in slots
//            preallocated for the trace number; no Lua call, no allocation.
//   "abort": code and info as given; the location is the abort's func/pc when
//            that is a Lua function with a line, else the innermost Lua frame
//            on the stack; a root trace whose start instruction now reads as
//            IFORL/IITERL/ILOOP/IFUNCF/IFUNCV was blacklisted by this abort.
//   "stop":  a trace that ended at a C or fast function with link type
//            "stitch" or "return" is a split; its location is the innermost
//            Lua frame below the callee, i.e. the calling line (across pcall
//            and xpcall). When the frame right below the callee is another C
//            function, a Lua function that C code called back (an lpeg
//            capture, a gsub replacement) tail-called the callee and is gone:
//            no frame on the stack made the call, and the location is the
//            trace's start, in that function.
// Inside the handler, stack level 0 is the handler itself and level 1 the
// code that triggered the event (verified on Debian's LuaJIT: for a split,
// level 1 is the callee and the first non-C level is the calling Lua line,
// also inside a helper inlined into the loop, across pcall and tail calls).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>
#include <exception>

#include "exit_release.h"
#include "lua_api.h"
#include "timeline_hooks.h"
#include "trace_capture.h"
#include "zones.h"

namespace ljcheck {
namespace {

enum Upvalue {
  kCaptureUv = 1, kStartFuncsUv, kFuncinfoUv, kFuncbcUv, kTraceinfoUv, kAnchorsUv, kChainUv,
  kLoadedUv, kJitZoneKeyUv,  // package.loaded and "jit.zone": see ZoneSources
  kScratchThreadUv  // the thread jit.util.funcbc is called on directly
};
static_assert(kChainUv == kTraceChainUpvalue);
// Handler arguments: what, tr, func, pc, then (parent, exitno) or (code, info).
enum Arg { kWhat = 1, kTrace, kFunc, kPc, kArg5, kArg6 };

struct Where {
  StringId source = 0;
  int line = 0;
};

int intAt(lua_State* L, int idx, int fallback) {
  return lua_type(L, idx) == LUA_TNUMBER ? static_cast<int>(lua_tointeger(L, idx)) : fallback;
}

bool isLuaFunction(lua_State* L, int idx) {
  return lua_type(L, idx) == LUA_TFUNCTION && !lua_iscfunction(L, idx);
}

// Pushes jit.util.funcinfo(func [, pc]); idx must be absolute.
void pushFuncinfo(lua_State* L, int idx, const int* pc) {
  lua_pushvalue(L, lua_upvalueindex(kFuncinfoUv));
  lua_pushvalue(L, idx);
  if (pc) lua_pushinteger(L, *pc);
  lua_call(L, pc ? 2 : 1, 1);
}

// Keeps the function at idx alive while the location cache holds its
// address (a collected function's address can be reused by a new one); past
// kMaxCachedLocations the cache and its anchors start afresh.
void anchorFunction(lua_State* L, TraceCapture& c, int idx) {
  if (c.locations.size() >= kMaxCachedLocations) {
    c.locations.clear();
    for (auto& recent : c.recentLocations) recent = {};
    lua_newtable(L);
    lua_replace(L, lua_upvalueindex(kAnchorsUv));
  }
  lua_pushvalue(L, idx);
  lua_pushboolean(L, 1);
  lua_rawset(L, lua_upvalueindex(kAnchorsUv));
}

// The line of the Lua function at idx at pc, when it is Lua and pc has a
// line. jit.util.funcinfo builds a table per call (most of a handler call's
// cost), so each (function, pc) is resolved once: a loop aborts again and
// again at the same place.
TraceCapture::Location* cachedLocation(lua_State* L, TraceCapture& c, int idx, int pc) {
  if (!isLuaFunction(L, idx) || pc < 0) return nullptr;
  std::pair<const void*, int> key{lua_topointer(L, idx), pc};
  for (const auto& recent : c.recentLocations)
    if (recent.at && recent.function == key.first && recent.pc == pc) return recent.at;
  auto cached = c.locations.find(key);
  if (cached == c.locations.end()) {
    pushFuncinfo(L, idx, &pc);
    TraceCapture::Location found;
    found.line = lua::intField(L, -1, "currentline", -1);
    found.functionLine = lua::intField(L, -1, "linedefined", -1);
    if (found.line >= 0) {
      lua_getfield(L, -1, "source");
      found.source = c.nameId(lua::stringAt(L, -1));
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    anchorFunction(L, c, idx);
    cached = c.locations.emplace(key, found).first;
  }
  auto& recent = c.recentLocations[c.nextRecentLocation++ % 2];
  recent = {key.first, pc, &cached->second};
  return &cached->second;
}

bool luaFunctionLocation(lua_State* L, TraceCapture& c, int idx, int pc, Where& out) {
  const TraceCapture::Location* at = cachedLocation(L, c, idx, pc);
  if (!at || at->line < 0) return false;
  out = {at->source, at->line};
  return true;
}

// The innermost Lua frame below the handler (level 0).
bool innermostLuaFrame(lua_State* L, TraceCapture& c, Where& out) {
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); ++level) {
    if (!lua_getinfo(L, "Sl", &ar)) break;
    if (std::strcmp(ar.what, "C") == 0 || ar.currentline < 0) continue;
    out = {c.nameId(ar.source ? ar.source : ""), ar.currentline};
    return true;
  }
  return false;
}

// The ffid of the C function at idx, kPlainCFunction without one.
int fastFunctionId(lua_State* L, int idx) {
  pushFuncinfo(L, idx, nullptr);
  int ffid = lua::intField(L, -1, "ffid", kPlainCFunction);
  lua_pop(L, 1);
  return ffid;
}

// Event subject from the abort's info: a number as is, a builtin by ffid.
int infoSubject(lua_State* L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER) return static_cast<int>(lua_tointeger(L, idx));
  if (lua_type(L, idx) == LUA_TFUNCTION && lua_iscfunction(L, idx)) return fastFunctionId(L, idx);
  return kNoSubject;
}

StringId errorObjectText(lua_State* L, TraceCapture& c, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) return c.nameId(lua::stringAt(L, idx));
  const char* type = lua_type(L, idx) == LUA_TNONE ? "nil" : luaL_typename(L, idx);  // an absent argument reads as nil
  return c.nameId(std::string("(error object is a ") + type + " value)");
}

// The live start record of trace tr, or null.
StartRecord* startOf(TraceCapture& c, int tr) {
  if (tr <= 0 || static_cast<std::size_t>(tr) >= c.starts.size()) return nullptr;
  StartRecord& s = c.starts[static_cast<std::size_t>(tr)];
  return s.live ? &s : nullptr;
}

// The trace ended: drop its start record. Its start function stays in the
// table until the trace number starts again (at most maxtrace functions are
// kept alive that way), which saves a table store per event.
void forget(TraceCapture& c, int tr) {
  StartRecord* s = startOf(c, tr);
  if (s) s->live = false;
  c.stitchCallers.erase(tr);
}

std::vector<TraceCapture::CallerFrame> callerFramesOf(lua_State* L, TraceCapture& c, int parent, StringId source,
                                                      int functionLine, int level, bool returns);
std::pair<int, int> continuationExtent(lua_State* L, TraceCapture& c, int funcIdx, int pc,
                                       std::pair<int, int>* condition = nullptr, bool* backEdge = nullptr);
void recordCallerFrames(TraceCapture& c, const TraceEvent& at, const std::vector<TraceCapture::CallerFrame>& frames);

void onStart(lua_State* L, TraceCapture& c) {
  int tr = static_cast<int>(lua_tointeger(L, kTrace));  // 0 when absent
  if (tr <= 0) return;
  auto slot = static_cast<std::size_t>(tr);
  if (slot >= c.starts.size()) c.starts.resize(slot + 1);  // only past the preallocated capacity
  int parent = static_cast<int>(lua_tointeger(L, kArg5));  // numbers or nil (0)
  c.starts[slot] = {static_cast<int>(lua_tointeger(L, kPc)), parent, static_cast<int>(lua_tointeger(L, kArg6)), true};
  lua_pushvalue(L, kFunc);
  lua_rawseti(L, lua_upvalueindex(kStartFuncsUv), tr);
  c.stitchCallers.erase(tr);
  if (!c.paused && parent != 0 && c.starts[slot].exitno == -1) {
    // A stitched trace: the frames it returns into are on the stack now,
    // and its abort (if any) may come after they have returned.
    const TraceCapture::Location* at = cachedLocation(L, c, kFunc, c.starts[slot].pc);
    if (at && at->line >= 0) {
      std::pair<int, int> condition{0, 0};
      bool backEdge = false;
      continuationExtent(L, c, kFunc, c.starts[slot].pc, &condition, &backEdge);
      std::vector<TraceCapture::CallerFrame> frames =
          callerFramesOf(L, c, parent, at->source, at->functionLine, 1, !backEdge);
      if (condition.first > 0) frames.push_back({at->source, at->functionLine, at->line, condition});
      if (!frames.empty()) c.stitchCallers[tr] = std::move(frames);
    }
  }
  if (!c.paused) recordTraceStart(L, tr, parent);
}

// The zone path open now, as a pool id (0, the empty string, when none is open).
StringId zoneNow(lua_State* L, TraceCapture& c) {
  if (c.zoneStack->data.depth == 0) {  // the common case: only jit.zone's stack to look at
    lua_pushvalue(L, lua_upvalueindex(kJitZoneKeyUv));
    lua_rawget(L, lua_upvalueindex(kLoadedUv));
    bool none = lua_objlen(L, -1) == 0;  // nil (not loaded) or an empty stack
    lua_pop(L, 1);
    if (none) return 0;
  }
  std::string path =
      currentZonePath(L, {c.zoneStack, lua_upvalueindex(kLoadedUv), lua_upvalueindex(kJitZoneKeyUv)});
  return path.empty() ? 0 : c.nameId(path);
}

// The instruction at pc of the Lua function at funcIdx (jit.util.funcbc), or -1.
// funcbc is a plain lua_CFunction that only reads its two arguments and pushes
// numbers, so it is called directly on a scratch thread holding them: a
// lua_call from the handler cost more than the rest of an abort's handling.
long long instructionAt(lua_State* L, const TraceCapture& c, int funcIdx, int pc) {
  lua_State* scratch = c.funcbcThread;
  if (c.funcbc && scratch) {  // the scratch stack is empty between calls
    lua_pushvalue(L, funcIdx);
    lua_xmove(L, scratch, 1);
    lua_pushinteger(scratch, pc);
    int results = c.funcbc(scratch);  // the instruction and its mode, or nothing past the end
    long long ins = results > 0 ? static_cast<long long>(static_cast<std::uint32_t>(lua_tointeger(scratch, -results)))
                                : -1;
    lua_settop(scratch, 0);
    return ins;
  }
  lua_pushvalue(L, lua_upvalueindex(kFuncbcUv));
  lua_pushvalue(L, funcIdx);
  lua_pushinteger(L, pc);
  lua_call(L, 2, 1);
  long long ins = lua_type(L, -1) == LUA_TNUMBER
                      ? static_cast<long long>(static_cast<std::uint32_t>(lua_tointeger(L, -1)))
                      : -1;
  lua_pop(L, 1);
  return ins;
}

// The jump target of instruction `ins` at pc (lj_bc.h: D is the offset
// + BCBIAS_J, 0x8000).
int jumpTarget(int pc, long long ins) { return pc + 1 + static_cast<int>(ins >> 16) - 0x8000; }

// The lowest and highest line of the instructions from pc `from` to `to`;
// {0, 0} when none has a line.
std::pair<int, int> linesBetween(lua_State* L, int funcIdx, int from, int to) {
  int first = 0, last = 0;
  for (int at = from; at <= to; ++at) {
    pushFuncinfo(L, funcIdx, &at);
    int line = lua::intField(L, -1, "currentline", -1);
    lua_pop(L, 1);
    if (line <= 0) continue;
    if (first == 0 || line < first) first = line;
    if (line > last) last = line;
  }
  return {first, last};
}

// The lines a trace starting at (func, pc) would have compiled: a FORL or
// ITERL loop from its jump target to itself; a pairs/next loop, whose
// traces start at its ITERN (lj_record.c: rec_setup_root), from the ISNEXT
// before its body to the ITERL after the ITERN; a while or repeat loop from
// its LOOP (or, for a while loop, its condition: the target of the back
// edge right before the exit) to its exit, the LOOP's jump target; a
// return (where LuaJIT restarts a trace that went down a recursion: what
// it records is that return and its caller's code after it, never the
// function's body; audit 86 d04) its own line; otherwise the whole
// function.
std::pair<int, int> codeExtent(lua_State* L, TraceCapture& c, int funcIdx, int pc, long long ins) {
  using Role = TraceCapture::LoopRole;
  const Role role = ins >= 0 ? c.loopRole(static_cast<int>(ins & 0xff)) : Role::None;
  int from = 0, to = 0;  // the pcs of the loop
  if (role == Role::End) {
    from = std::max(jumpTarget(pc, ins) - 1, 0);  // its FORI or JMP to the ITERC
    to = pc;
  } else if (role == Role::Next) {
    const long long iterl = instructionAt(L, c, funcIdx, pc + 1);
    if (iterl >= 0 && c.loopRole(static_cast<int>(iterl & 0xff)) == Role::End) {
      from = std::max(jumpTarget(pc + 1, iterl) - 1, 0);  // the ISNEXT that jumps to the ITERN
      to = pc + 1;
    }
  } else if (role == Role::Return) {
    from = to = pc;
  } else if (role == Role::Head) {  // LOOP or ILOOP: no root trace starts at a JLOOP
    const int exit = jumpTarget(pc, ins);
    from = pc;
    to = exit - 1;
    const long long back = exit - 1 > pc ? instructionAt(L, c, funcIdx, exit - 1) : -1;
    if (back >= 0 && c.loopRole(static_cast<int>(back & 0xff)) == Role::Jump && jumpTarget(exit - 1, back) <= pc)
      from = std::max(jumpTarget(exit - 1, back), 0);
  }
  if (to > from || role == Role::Return) {
    if (std::pair<int, int> lines = linesBetween(L, funcIdx, from, to); lines.first > 0) return lines;
  }
  pushFuncinfo(L, funcIdx, nullptr);
  int first = lua::intField(L, -1, "linedefined", 0);
  int last = lua::intField(L, -1, "lastlinedefined", 0);
  lua_pop(L, 1);
  return {first > 0 ? first : 1, last >= first ? last : first};
}

// The lines a stitched trace resuming after the call at pc would have
// compiled, or that run interpreted from a side exit at pc the VM left to
// the interpreter: from pc up to the back edge of the innermost loop around
// it (a FORL or ITERL, or the JMP of a while loop, jumping back to pc or
// before it; the back edge itself enters the loop's trace again and carries
// the loop header's line, which is not counted; `backEdge` says it was
// found), or to the function's end when no loop holds it, or to a return
// (or tail call) that no jump seen on the way goes past: what comes after
// it does not run from here (audit 90: `return handlers[t](w, unpack(a))`
// took the samples of a branch after it). `condition`, when given, gets the lines of a while
// loop's condition that back edge jumps to: they run interpreted too,
// before the loop's LOOP enters its trace (audit 50: half of a fallback's
// time), and are kept apart, as an extent of their own, so that a start
// whose lines they share does not take the rest. What runs after the
// function returns, in its caller, is that caller's own extent
// (callerFramesOf).
std::pair<int, int> continuationExtent(lua_State* L, TraceCapture& c, int funcIdx, int pc,
                                       std::pair<int, int>* condition, bool* backEdge) {
  using Role = TraceCapture::LoopRole;
  int to = pc;
  int farthest = pc;  // the farthest target of a forward jump seen
  const long long first = instructionAt(L, c, funcIdx, pc);
  const Role here = first >= 0 ? c.loopRole(static_cast<int>(first & 0xff)) : Role::None;
  for (int at = pc + 1; here != Role::Return && here != Role::TailCall; ++at) {
    const long long ins = instructionAt(L, c, funcIdx, at);
    if (ins < 0) break;  // past the end
    const Role role = c.loopRole(static_cast<int>(ins & 0xff));
    if (role == Role::Jump || role == Role::Head || role == Role::Skip) farthest = std::max(farthest, jumpTarget(at, ins));
    if ((role == Role::End || role == Role::Jump) && jumpTarget(at, ins) <= pc) {
      if (backEdge) *backEdge = true;
      if (condition && role == Role::Jump) {
        const int target = std::max(jumpTarget(at, ins), 0);
        for (int q = target; q < at; ++q) {  // the condition runs up to the LOOP (a JLOOP once traced)
          const long long head = instructionAt(L, c, funcIdx, q);
          if (head < 0 || c.loopRole(static_cast<int>(head & 0xff)) != Role::Head) continue;
          if (q > target) *condition = linesBetween(L, funcIdx, target, q - 1);
          break;
        }
      }
      break;
    }
    to = at;
    if ((role == Role::Return || role == Role::TailCall) && farthest <= at) break;
  }
  // From the exit's own line on: code LuaJIT placed after it that runs
  // before it in the source (the UCLO and RET of an early `return 0`, moved
  // to the function's end) is not reached from here (audit 66: an extent of
  // lines 7-11 for an exit at line 11 took the samples of the function's
  // blacklisted entry).
  std::pair<int, int> lines = linesBetween(L, funcIdx, pc, to);
  const int exitLine = linesBetween(L, funcIdx, pc, pc).first;
  if (exitLine > 0 && lines.first < exitLine) {
    lines.first = exitLine;
    lines.second = std::max(lines.second, exitLine);
  }
  return lines;
}

// The start site of trace tr (which loop or function died: -jv's "start"
// line), the lines it would have compiled, and whether this abort
// blacklisted it: the VM penalizes the start pc before the abort event, and
// on the last penalty rewrites its instruction to the I-variant.
void readStart(lua_State* L, TraceCapture& c, int tr, const StartRecord& start, TraceEvent& ev) {
  lua_rawgeti(L, lua_upvalueindex(kStartFuncsUv), tr);
  int funcIdx = lua_gettop(L);
  TraceCapture::Location* at = cachedLocation(L, c, funcIdx, start.pc);
  if (at) {
    Where where;
    if (at->line >= 0) where = {at->source, at->line};
    ev.startSource = where.source;
    ev.startLine = where.line;
    ev.startPc = start.pc;
    ev.startFunctionLine = at->functionLine;
    long long ins = instructionAt(L, c, funcIdx, start.pc);
    // A side trace that aborts leaves its parent trace running: it keeps
    // only the code from its exit back into the parent out of traces, lines
    // this collector cannot bound. A trace stitched after a call (the VM
    // gives its parent and exit -1) is blacklisted by its first abort: the
    // VM links the stitching trace to itself (lj_trace.c trace_abort,
    // "Self-link is blacklisted") and never records after that call again,
    // so what follows the call runs interpreted. A root trace's start and a
    // stitched trace's get an extent, and so a cost.
    const bool stitched = start.parent != 0 && start.exitno == -1;
    if ((start.parent == 0 || stitched) && at->extent.first == 0) {  // first abort of a trace started here
      auto key = std::make_tuple(where.source, where.line, start.pc);
      auto cached = c.extents.find(key);
      at->extent = cached != c.extents.end() ? cached->second
                   : stitched               ? continuationExtent(L, c, funcIdx, start.pc)
                                            : codeExtent(L, c, funcIdx, start.pc, ins);
      if (cached == c.extents.end() && !c.events.full()) c.extents.emplace(key, at->extent);  // bounded with the tally
    }
    if (start.parent == 0 || stitched) {
      ev.extentFirstLine = at->extent.first;
      ev.extentLastLine = at->extent.second;
    }
    if (auto callers = stitched ? c.stitchCallers.find(tr) : c.stitchCallers.end(); callers != c.stitchCallers.end()) {
      recordCallerFrames(c, ev, callers->second);
      c.stitchCallers.erase(callers);
    }
    if (stitched || (start.parent == 0 && ins >= 0 && c.isDemotedOpcode(static_cast<int>(ins & 0xff))))
      ev.blacklistedStart = true;
  }
  lua_pop(L, 1);
}

void onAbort(lua_State* L, TraceCapture& c) {
  int tr = static_cast<int>(lua_tointeger(L, kTrace));  // 0 when absent
  // Coverage: the instruction the trace aborted at was not recorded.
  c.visited.abortedAt({lua_topointer(L, kFunc), intAt(L, kPc, -1)});
  const StartRecord* start = startOf(c, tr);
  if (!c.paused) {
    TraceEvent ev;
    ev.kind = TraceEventKind::Abort;
    if (lua_type(L, kArg5) == LUA_TNUMBER) {
      ev.code = static_cast<int>(lua_tointeger(L, kArg5));
      ev.subject = infoSubject(L, kArg6);
    } else {
      ev.errorText = errorObjectText(L, c, kArg5);
    }
    Where where;
    if (!luaFunctionLocation(L, c, kFunc, intAt(L, kPc, -1), where)) innermostLuaFrame(L, c, where);
    ev.source = where.source;
    ev.line = where.line;
    if (start) readStart(L, c, tr, *start, ev);
    if (start && start->parent != 0 && start->exitno >= 0) c.abortedExits.emplace(start->parent, start->exitno);
    ev.zone = zoneNow(L, c);
    c.events.add(ev);
    recordTraceAbort(L, ev, c.strings);
  }
  forget(c, tr);
}

// The link type of trace tr ("stitch", "return", "loop", ...), read from jit.util.traceinfo.
std::string_view linkType(lua_State* L, int tr) {
  lua_pushvalue(L, lua_upvalueindex(kTraceinfoUv));
  lua_pushinteger(L, tr);
  lua_call(L, 1, 1);
  if (!lua_istable(L, -1)) return {};
  lua_getfield(L, -1, "linktype");
  return lua::stringAt(L, -1);  // valid while it stays on the stack
}

// The frame right below the callee (level 1) is a C function other than
// pcall or xpcall: C code called a Lua function back, which tail-called the
// callee and left no frame of its own.
bool calledBackFromC(lua_State* L, TraceCapture& c) {
  lua_Debug ar;
  if (!lua_getstack(L, 2, &ar) || !lua_getinfo(L, "f", &ar)) return false;
  bool fromC = lua_iscfunction(L, -1);
  if (fromC) {
    int ffid = fastFunctionId(L, lua_gettop(L));
    fromC = ffid != c.pcallFfid && ffid != c.xpcallFfid;
  }
  lua_pop(L, 1);
  return fromC;
}

// Where trace tr started, when its start record is live and that is a Lua line.
bool startLocation(lua_State* L, TraceCapture& c, int tr, Where& out) {
  if (!startOf(c, tr)) return false;
  lua_rawgeti(L, lua_upvalueindex(kStartFuncsUv), tr);
  bool found = luaFunctionLocation(L, c, lua_gettop(L), startOf(c, tr)->pc, out);
  lua_pop(L, 1);
  return found;
}

// The pc a frame of the Lua function at funcIdx that is on `line` is at
// (the API gives its line, not its pc): the last call (CALL, CALLM, ITERC)
// on that line, so that a loop written on one line holds it; else the
// first pc on the line; -1 when no instruction has it.
int framePcOnLine(lua_State* L, TraceCapture& c, int funcIdx, int line) {
  int first = -1, call = -1;
  for (int pc = 0;; ++pc) {
    const long long ins = instructionAt(L, c, funcIdx, pc);
    if (ins < 0) break;
    pushFuncinfo(L, funcIdx, &pc);
    const int at = lua::intField(L, -1, "currentline", -1);
    lua_pop(L, 1);
    if (at != line) continue;
    if (first < 0) first = pc;
    if (c.loopRole(static_cast<int>(ins & 0xff)) == TraceCapture::LoopRole::Call) call = pc;
  }
  return call >= 0 ? call : first;
}

// Where the root trace of a family started: its function (chunk, first
// line; -1 when this capture did not see it start), and whether at that
// function's entry (a function trace) rather than at a loop.
struct RootFunction {
  StringId source = 0;
  int line = -1;
  bool entry = false;
};

// The root of side trace `parent`'s family (RootFunction).
RootFunction rootFunctionOf(lua_State* L, TraceCapture& c, int parent) {
  int root = parent;
  for (int hops = 0; hops < 64 && root > 0 && static_cast<std::size_t>(root) < c.starts.size(); ++hops) {
    const StartRecord& s = c.starts[static_cast<std::size_t>(root)];
    if (s.parent == 0) {
      lua_rawgeti(L, lua_upvalueindex(kStartFuncsUv), root);
      const TraceCapture::Location* at = cachedLocation(L, c, lua_gettop(L), s.pc);
      lua_pop(L, 1);
      if (at && at->line >= 0) return {at->source, at->functionLine, s.pc == 0};
      break;
    }
    root = s.parent;
  }
  return {};
}

// The frames a continuation at `level` (1 for a stitched trace's start or
// a fallback exit; 2 for a trace that returned to the interpreter at a
// call, its callee at level 1) returns into, each with what it then runs
// interpreted from its call on (continuationExtent): the loop calls
// step(), a stitched trace or a fallback exit resumes in step, and after
// step returns its caller runs interpreted too, up to the back edge of
// the loop around the call, where a trace is entered again. `returns`:
// the continuation's own frame runs to its end (no back edge holds it),
// so its caller's frame is next. Out to the first frame whose continuation
// ends at a back edge, or to the root trace's frame when that trace
// started at its function's entry (its callers called it from the
// interpreter, and ran there anyway); within a few Lua levels (audit 90:
// a side trace of a helper's loop that went on into its caller, and an
// exit left to the interpreter after the loop, charged nothing of the
// callers' lines).
std::vector<TraceCapture::CallerFrame> callerFramesOf(lua_State* L, TraceCapture& c, int parent, StringId source,
                                                      int functionLine, int level, bool returns) {
  constexpr int kMaxInlinedLevels = 8;
  std::vector<TraceCapture::CallerFrame> out;
  const RootFunction root = rootFunctionOf(L, c, parent);
  if (root.line < 0) return out;
  bool inRoot = source == root.source && functionLine == root.line;
  lua_Debug ar;
  for (int up = level + 1; returns && !(inRoot && root.entry) && up <= level + kMaxInlinedLevels; ++up) {
    if (!lua_getstack(L, up, &ar) || !lua_getinfo(L, "Slf", &ar)) break;
    if (lua_iscfunction(L, -1)) {  // inlined frames are Lua's
      lua_pop(L, 1);
      break;
    }
    const int funcIdx = lua_gettop(L);
    const int pc = ar.currentline > 0 ? framePcOnLine(L, c, funcIdx, ar.currentline) : -1;
    const StringId frameSource = c.nameId(ar.source ? ar.source : "");
    bool backEdge = false;
    if (pc >= 0) {
      std::pair<int, int> condition{0, 0};
      out.push_back(
          {frameSource, ar.linedefined, ar.currentline, continuationExtent(L, c, funcIdx, pc, &condition, &backEdge)});
      if (condition.first > 0) out.push_back({frameSource, ar.linedefined, ar.currentline, condition});
    }
    lua_pop(L, 1);
    returns = !backEdge;
    inRoot = frameSource == root.source && ar.linedefined == root.line;
  }
  return out;
}

// One CallerExtent event per frame, keyed by the start fields of `at`.
void recordCallerFrames(TraceCapture& c, const TraceEvent& at, const std::vector<TraceCapture::CallerFrame>& frames) {
  for (const TraceCapture::CallerFrame& frame : frames) {
    TraceEvent caller = at;
    caller.kind = TraceEventKind::CallerExtent;
    caller.blacklistedStart = false;
    caller.code = -1;
    caller.subject = kNoSubject;
    caller.errorText = 0;
    caller.source = frame.source;
    caller.line = frame.line;
    caller.functionLine = frame.functionLine;
    caller.extentFirstLine = frame.extent.first;
    caller.extentLastLine = frame.extent.second;
    c.events.add(caller);
  }
}

// Trace tr, a side trace, stopped at once with link type "interpreter": the
// stub lj_record.c links a side exit to when it gives up on the exit (after
// hotexit + tryside exits, or maxside side traces of its root; -jv's
// "fallback to interpreter"). From then on the passes that take the exit
// run interpreted from it: to the back edge of the loop around it, or to
// its function's end, as after a stitched call (continuationExtent).
void recordExitFallback(lua_State* L, TraceCapture& c, int tr, const StartRecord& start) {
  lua_rawgeti(L, lua_upvalueindex(kStartFuncsUv), tr);
  const int funcIdx = lua_gettop(L);
  const TraceCapture::Location* at = cachedLocation(L, c, funcIdx, start.pc);
  if (!at || at->line < 0) return;
  TraceEvent ev;
  ev.kind = TraceEventKind::ExitFallback;
  ev.source = ev.startSource = at->source;
  ev.line = ev.startLine = at->line;
  ev.startPc = start.pc;
  ev.startFunctionLine = at->functionLine;
  ev.code = start.parent;  // the exit as -jv counts them: the parent trace and its exit
  ev.subject = start.exitno;
  ev.afterAborts = c.abortedExits.count({start.parent, start.exitno}) > 0;
  std::pair<int, int> condition{0, 0};
  bool exitLoops = false;
  const std::pair<int, int> extent = continuationExtent(L, c, funcIdx, start.pc, &condition, &exitLoops);
  ev.extentFirstLine = extent.first;
  ev.extentLastLine = extent.second;
  ev.zone = zoneNow(L, c);
  c.events.add(ev);
  std::vector<TraceCapture::CallerFrame> frames =
      callerFramesOf(L, c, start.parent, ev.startSource, ev.startFunctionLine, 1, !exitLoops);
  if (condition.first > 0) frames.push_back({ev.startSource, ev.startFunctionLine, ev.startLine, condition});
  recordCallerFrames(c, ev, frames);
}

// A trace that ended at a call with link type "return" (a split that
// cannot be stitched) hands what follows the call to the interpreter on
// every pass: the calling Lua frame runs from the call to the back edge of
// the loop around it (or to its end), and the frames it returns into, out
// to the root trace's function, up to where a trace is entered again
// (continuationExtent, callerFramesOf). That is the split's extent, and so
// its cost; its start is the call itself. The callee is level 1; pcall and
// xpcall frames between it and the calling frame are passed over. `error`
// never returns: what runs next is the caller of the pcall it unwinds to,
// from that call on (audit 90: the rest of the raising function was
// charged, and the loop after the pcall was not). Nothing when other C
// code called the callee, or when a function's own root trace tail-called
// it from the function's frame (`return os.date(...)`): that leaves no
// frame of its own, and its caller ran interpreted anyway (it called the
// function from the interpreter, else the function would have been
// inlined); that trace would have returned to the interpreter there all
// the same. A side or stitched trace may have gone on below its root's
// frame, and then the frames it went into are what runs interpreted.
void readReturnContinuation(lua_State* L, TraceCapture& c, int tr, TraceEvent& ev,
                            std::vector<TraceCapture::CallerFrame>& frames) {
  constexpr int kMaxLevels = 12;
  const StartRecord* start = startOf(c, tr);
  const RootFunction root = rootFunctionOf(L, c, tr);
  if (!start || root.line < 0) return;
  lua_Debug ar;
  int level = 2;
  if (ev.subject == c.errorFfid) {  // on to the first pcall or xpcall frame, and past it
    for (;; ++level) {
      if (level > kMaxLevels || !lua_getstack(L, level, &ar) || !lua_getinfo(L, "f", &ar)) return;
      const int ffid = lua_iscfunction(L, -1) ? fastFunctionId(L, lua_gettop(L)) : -1;
      lua_pop(L, 1);
      if (ffid == c.pcallFfid || ffid == c.xpcallFfid) break;
    }
    ++level;
  }
  for (;; ++level) {
    if (level > kMaxLevels || !lua_getstack(L, level, &ar) || !lua_getinfo(L, "Slf", &ar)) return;
    if (!lua_iscfunction(L, -1)) break;
    const int ffid = fastFunctionId(L, lua_gettop(L));
    lua_pop(L, 1);
    if (ffid != c.pcallFfid && ffid != c.xpcallFfid) return;
  }
  const int funcIdx = lua_gettop(L);
  const StringId source = c.nameId(ar.source ? ar.source : "");
  bool inRoot = source == root.source && ar.linedefined == root.line;
  lua_Debug up;
  for (int k = level + 1; !inRoot && k <= level + kMaxLevels && lua_getstack(L, k, &up) && lua_getinfo(L, "S", &up); ++k)
    inRoot = c.nameId(up.source ? up.source : "") == root.source && up.linedefined == root.line;
  if (!inRoot && start->parent == 0) {
    lua_pop(L, 1);
    return;
  }
  const int pc = ar.currentline > 0 ? framePcOnLine(L, c, funcIdx, ar.currentline) : -1;
  std::pair<int, int> condition{0, 0};
  bool backEdge = false;
  const std::pair<int, int> extent =
      pc >= 0 ? continuationExtent(L, c, funcIdx, pc, &condition, &backEdge) : std::pair<int, int>{};
  if (extent.first > 0) {
    ev.startSource = source;
    ev.startLine = ar.currentline;
    ev.startPc = pc;
    ev.startFunctionLine = ar.linedefined;
    ev.extentFirstLine = extent.first;
    ev.extentLastLine = extent.second;
    frames = callerFramesOf(L, c, tr, ev.startSource, ev.startFunctionLine, level, !backEdge);
    if (condition.first > 0) frames.push_back({ev.startSource, ev.startFunctionLine, ev.startLine, condition});
  }
  lua_pop(L, 1);
}

void onStop(lua_State* L, TraceCapture& c) {
  int tr = static_cast<int>(lua_tointeger(L, kTrace));  // 0 when absent
  c.visited.recorded();  // coverage: the trace's last instruction was recorded
  Where started;
  bool callback = false;
  if (!c.paused) recordTraceStop(L, tr);
  // A side trace may be the stub of an exit left to the interpreter; only a
  // trace that ended at a C or fast function is a split. Both need the link
  // type, read once.
  const StartRecord* start = startOf(c, tr);
  const bool sideTrace = !c.paused && start && start->parent != 0 && start->exitno >= 0;
  bool cCallee = !c.paused && lua_type(L, kFunc) == LUA_TFUNCTION && lua_iscfunction(L, kFunc);
  if (cCallee) callback = calledBackFromC(L, c) && startLocation(L, c, tr, started);
  if (!sideTrace && !cCallee) {
    forget(c, tr);
    return;
  }
  std::string_view link = linkType(L, tr);
  bool stitch = link == "stitch";
  bool split = cCallee && (stitch || link == "return");
  if (sideTrace && link == "interpreter") recordExitFallback(L, c, tr, *start);
  lua_settop(L, kArg6);
  if (!split) {
    forget(c, tr);
    return;
  }
  TraceEvent ev;
  ev.kind = stitch ? TraceEventKind::Stitch : TraceEventKind::Return;
  ev.subject = fastFunctionId(L, kFunc);
  Where where = started;
  if (!callback) innermostLuaFrame(L, c, where);
  ev.source = where.source;
  ev.line = where.line;
  ev.zone = zoneNow(L, c);
  std::vector<TraceCapture::CallerFrame> frames;
  if (!stitch && !callback) readReturnContinuation(L, c, tr, ev, frames);  // while tr's family is known
  forget(c, tr);
  c.events.add(ev);
  recordCallerFrames(c, ev, frames);
}

// The handler behind this one (the one it replaced, -jv's, or one attached
// since: vmevent_attach.h), called with the same arguments.
// top: the arguments the handler got; absent ones up to nargs are passed as nil.
void callChained(lua_State* L, int top, int nargs) {
  if (lua_type(L, lua_upvalueindex(kChainUv)) != LUA_TFUNCTION) return;
  lua_settop(L, top);  // drops what the handler left above its arguments
  lua_settop(L, nargs);
  lua_pushvalue(L, lua_upvalueindex(kChainUv));
  for (int i = 1; i <= nargs; ++i) lua_pushvalue(L, i);
  if (lua_pcall(L, nargs, 0, 0) != 0) lua_pop(L, 1);
}

int traceHandler(lua_State* L) {
  if (processExiting()) return 0;  // the capture was released at exit
  auto* capture = static_cast<TraceCapture*>(lua_touserdata(L, lua_upvalueindex(kCaptureUv)));
  std::size_t length = 0;
  const char* what = lua_tolstring(L, kWhat, &length);  // "start", "stop", "abort", "flush"
  bool start = length == 5 && what[0] == 's' && what[2] == 'a';
  bool abort = length == 5 && what[0] == 'a';
  bool stop = length == 4 && what[0] == 's';
  bool flush = length == 5 && what[0] == 'f';
  // No lua_settop to the six arguments (a costly call, and a root trace's
  // start has four): an absent argument reads as none (type LUA_TNONE,
  // integer 0) just as nil would, and scratch values go above the arguments.
  int top = lua_gettop(L);
  try {
    if (start) onStart(L, *capture);
    else if (abort) onAbort(L, *capture);
    else if (stop) onStop(L, *capture);
    else if (flush) capture->abortedExits.clear();  // trace numbers start over
  } catch (const std::exception&) {
    // Out of memory while recording an event: the event is lost, the VM goes on.
  }
  callChained(L, top, kArg6);
  return 0;
}

}  // namespace

void pushTraceHandler(lua_State* L, TraceCapture* capture, int utilIndex) {
  utilIndex = utilIndex < 0 ? lua_gettop(L) + utilIndex + 1 : utilIndex;
  lua_pushlightuserdata(L, capture);
  lua_createtable(L, static_cast<int>(capture->traceCapacity() + 1), 0);
  lua_getfield(L, utilIndex, "funcinfo");
  lua_getfield(L, utilIndex, "funcbc");
  lua_getfield(L, utilIndex, "traceinfo");
  lua_newtable(L);  // kAnchorsUv
  lua_pushnil(L);  // kChainUv
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (!lua_istable(L, -1)) {  // not a LuaJIT host as we know it: no jit.zone then
    lua_pop(L, 1);
    lua_newtable(L);
  }
  lua_pushliteral(L, "jit.zone");
  capture->zoneStack = &zoneStackOf(L);
  capture->funcbcThread = lua_newthread(L);
  lua_getfield(L, utilIndex, "funcbc");
  capture->funcbc = lua_tocfunction(L, -1);  // null when it is not a plain C function
  lua_pop(L, 1);
  int* ffids[] = {&capture->pcallFfid, &capture->xpcallFfid, &capture->errorFfid};
  const char* names[] = {"pcall", "xpcall", "error"};
  for (int i = 0; i < 3; ++i) {
    lua_getfield(L, LUA_GLOBALSINDEX, names[i]);
    if (lua_iscfunction(L, -1)) {
      lua_getfield(L, utilIndex, "funcinfo");
      lua_pushvalue(L, -2);
      lua_call(L, 1, 1);
      *ffids[i] = lua::intField(L, -1, "ffid", -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pushcclosure(L, traceHandler, kScratchThreadUv);
}

}  // namespace ljcheck
