// C++ objects the module keeps in Lua memory (session slots, trace reports,
// zone stacks) that own heap memory of their own. Lua frees them with the VM
// (their __gc), but a plain os.exit(n) in LuaJIT ends the process without
// closing the VM. So every such object links itself into one process-wide
// list, and a handler registered with atexit on first use (once per copy of
// the module, however often it is required) releases what is still linked
// when the process exits, without calling into any VM. From then on the
// trace handler and the profiler callback ignore the VM's events. A VM closed
// before the exit has unlinked its objects already: nothing is freed twice.
#pragma once

namespace ljcheck {

class ReleasedAtExit {
 public:
  ReleasedAtExit();           // links this object; registers the exit handler once
  virtual ~ReleasedAtExit();  // unlinks it
  ReleasedAtExit(const ReleasedAtExit&) = delete;
  ReleasedAtExit& operator=(const ReleasedAtExit&) = delete;

  // Frees the heap memory this object owns, touching no VM. The object stays
  // valid: a host that closes its VM after the exit handler ran still
  // destroys it through its __gc.
  virtual void releaseAtExit() noexcept = 0;

 private:
  static void releaseAll() noexcept;

  ReleasedAtExit* previous_ = nullptr;
  ReleasedAtExit* next_ = nullptr;
};

// True once the exit handler ran: the capture behind a still-attached
// handler is gone, so events must be ignored.
bool processExiting() noexcept;

}  // namespace ljcheck
