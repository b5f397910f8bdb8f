// The C handler attached with jit.attach(handler, "record") when a session
// collects coverage. The VM sends (tr, func, pc, depth) before it records each
// bytecode (verified on Debian's LuaJIT: the trace recorder's state is saved
// and restored around the event), so the set of (chunk, line) it sees is the
// set of lines the recorder visited, aborting ones included. Each (function,
// pc) is resolved to its line once with jit.util.funcinfo; the function is
// anchored in a table so its address cannot be reused while the cache holds it.
#include <cstdint>
#include <exception>

#include "exit_release.h"
#include "lua_api.h"
#include "trace_capture.h"

namespace ljcheck {
namespace {

enum RecordUpvalue { kRecordCaptureUv = 1, kRecordAnchorsUv, kRecordFuncinfoUv, kRecordFuncbcUv, kRecordChainUv };
static_assert(kRecordChainUv == kRecordChainUpvalue);
enum RecordArg { kRecordTrace = 1, kRecordFunc, kRecordPc, kRecordDepth };

void recordVisit(lua_State* L, TraceCapture& c) {
  c.visited.recorded();  // the instruction of the event before: the recorder moved on
  if (lua_type(L, kRecordFunc) != LUA_TFUNCTION || lua_iscfunction(L, kRecordFunc)) return;
  if (lua_type(L, kRecordPc) != LUA_TNUMBER) return;
  int pc = static_cast<int>(lua_tointeger(L, kRecordPc));
  if (pc < 0) return;
  const VisitedLines::Pc at{lua_topointer(L, kRecordFunc), pc};
  auto [it, fresh] = c.visited.resolved.try_emplace(at);
  if (!fresh) {
    if (!it->second.counted) c.visited.pending = at;
    return;
  }
  c.visited.pending = at;
  lua_pushvalue(L, kRecordFunc);
  lua_pushboolean(L, 1);
  lua_rawset(L, lua_upvalueindex(kRecordAnchorsUv));
  lua_pushvalue(L, lua_upvalueindex(kRecordFuncinfoUv));
  lua_pushvalue(L, kRecordFunc);
  lua_pushinteger(L, pc);
  lua_call(L, 2, 1);
  int line = lua::intField(L, -1, "currentline", -1);
  if (line < 0) return;
  lua_getfield(L, -1, "source");
  VisitedLines::Resolved& r = it->second;
  r.source = c.strings.intern(lua::stringAt(L, -1));
  r.line = line;
  c.visited.lines.emplace(r.source, line);
  // jit.util.funcbc(func, pc): the instruction, its opcode in the low byte.
  lua_pushvalue(L, lua_upvalueindex(kRecordFuncbcUv));
  lua_pushvalue(L, kRecordFunc);
  lua_pushinteger(L, pc);
  lua_call(L, 2, 1);
  if (lua_type(L, -1) == LUA_TNUMBER) r.opcode = static_cast<int>(static_cast<std::uint32_t>(lua_tonumber(L, -1)) & 0xffu);
}

// The handler this one replaced (-jdump's), called with the same arguments.
void callChained(lua_State* L) {
  if (lua_type(L, lua_upvalueindex(kRecordChainUv)) != LUA_TFUNCTION) return;
  lua_settop(L, kRecordDepth);
  lua_pushvalue(L, lua_upvalueindex(kRecordChainUv));
  for (int i = 1; i <= kRecordDepth; ++i) lua_pushvalue(L, i);
  if (lua_pcall(L, kRecordDepth, 0, 0) != 0) lua_pop(L, 1);
}

int recordHandler(lua_State* L) {
  if (processExiting()) return 0;  // the capture was released at exit
  auto* capture = static_cast<TraceCapture*>(lua_touserdata(L, lua_upvalueindex(kRecordCaptureUv)));
  lua_settop(L, kRecordDepth);
  if (!capture->paused) {
    try {
      recordVisit(L, *capture);
    } catch (const std::exception&) {
      // Out of memory: the line is lost, the VM goes on.
    }
  }
  callChained(L);
  return 0;
}

}  // namespace

void pushRecordHandler(lua_State* L, TraceCapture* capture, int utilIndex) {
  utilIndex = utilIndex < 0 ? lua_gettop(L) + utilIndex + 1 : utilIndex;
  lua_pushlightuserdata(L, capture);
  lua_newtable(L);
  lua_getfield(L, utilIndex, "funcinfo");
  lua_getfield(L, utilIndex, "funcbc");
  lua_pushnil(L);  // kRecordChainUv
  lua_pushcclosure(L, recordHandler, kRecordChainUv);
}

}  // namespace ljcheck
