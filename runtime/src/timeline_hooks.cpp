// The recorder hooks of the trace handler and the sampler (see timeline_hooks.h).
#include "timeline_hooks.h"

#include "lua_api.h"
#include "zones.h"

namespace ljcheck {
namespace {

// Inside trace events nothing may allocate in the VM: a VM without a zone
// stack yet (it never loaded the module) records as VM 0.
Event vmEvent(lua_State* L, EventKind kind) {
  Event ev;
  ev.timeNs = recorderNow();
  const ZoneStack* zones = findZoneStack(L);
  ev.vmId = zones ? zones->vmId : 0;
  ev.kind = kind;
  return ev;
}

}  // namespace

std::uint32_t vmIdOf(lua_State* L) { return zoneStackOf(L).vmId; }

std::int64_t heapBytes(lua_State* L) {
  return static_cast<std::int64_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
}

void recordTraceStart(lua_State* L, int trace, int parent) {
  if (!captureArmed()) return;
  Event ev = vmEvent(L, EventKind::TraceStart);
  ev.a = trace;
  ev.b = parent;
  emitEvent(ev);
}

void recordTraceStop(lua_State* L, int trace) {
  if (!captureArmed()) return;
  Event ev = vmEvent(L, EventKind::TraceStop);
  ev.a = trace;
  emitEvent(ev);
}

void recordTraceAbort(lua_State* L, const TraceEvent& abort, const StringPool& strings) {
  if (!captureArmed()) return;
  Event ev = vmEvent(L, EventKind::TraceAbort);
  ev.a = static_cast<std::int32_t>(internLabel(strings.text(abort.zone)));
  ev.b = static_cast<std::int64_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(abort.code)) << 32) |
                                   static_cast<std::uint32_t>(abort.subject));
  ev.c = static_cast<std::int64_t>((static_cast<std::uint64_t>(internLabel(strings.text(abort.source))) << 32) |
                                   static_cast<std::uint32_t>(abort.line));
  emitEvent(ev);
}

void recordTraceExit(lua_State* L, int trace, int exitNumber) {
  if (!captureArmed()) return;
  Event ev = vmEvent(L, EventKind::TraceExit);
  ev.a = trace;
  ev.b = exitNumber;
  emitEvent(ev);
}

void recordSample(lua_State* L, int vmStateLetter) {
  if (!captureArmed()) return;
  Event ev = vmEvent(L, EventKind::Sample);
  ev.a = vmStateLetter;
  ev.b = heapBytes(L);
  emitEvent(ev);
}

}  // namespace ljcheck
