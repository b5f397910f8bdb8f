// The hook an event recorder attaches to scopes (ljcheck.scope.mark/done):
// one synchronous call per mark and per done, on the thread that runs the VM,
// with the label, the monotonic time and the memory delta. Process-wide: it
// sees every VM the module is loaded in. Without a hook the cost is one
// atomic load per mark and per done.
#pragma once

#include <cstdint>
#include <string_view>

namespace ljcheck {

enum class ScopeEventKind { mark, done };

struct ScopeEvent {
  ScopeEventKind kind = ScopeEventKind::mark;
  std::string_view label;       // the scope's label; valid for the VM's life
  std::int64_t timeNs = 0;      // monotonic clock (CLOCK_MONOTONIC), nanoseconds
  std::int64_t heapBytes = 0;   // the Lua heap at this instant, in bytes
  // done: D, the heap at this done minus the heap at its mark. mark: I, the
  // heap now minus the heap at the end of the label's previous occurrence
  // under the same parent (the inverse delta; 0 on its first occurrence).
  std::int64_t memDelta = 0;
  int depth = 0;                // of the scope opened or closed; 1 = top level
  const void* vm = nullptr;     // identifies the VM (its scope state)
  std::uint32_t vmId = 0;       // the VM's id in recorder events (vmIdOf in ljcheck/timeline.h)
};

using ScopeHookFunction = void (*)(const ScopeEvent& event, void* user);

// Installs the hook (nullptr removes it). Install it before the VMs run, or
// remove the old one first: replacing a hook while VMs call it is not atomic
// for the (function, user) pair.
void setScopeHook(ScopeHookFunction function, void* user);

}  // namespace ljcheck
