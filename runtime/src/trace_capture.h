// The capture of one trace session: the start record of every live trace,
// the events the handler appended, and the strings they refer to. Filled by
// the trace handler (trace_handler.cpp) inside the VM, drained at stop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "event_tally.h"
#include "trace_event.h"

struct lua_State;

namespace ljcheck {

class ZoneStack;

// What the "start" event said about a trace, kept until it stops or aborts.
struct StartRecord {
  std::int32_t pc = 0;
  std::int32_t parent = 0;  // 0: a root trace
  std::int32_t exitno = 0;  // -1: a stitched trace
  bool live = false;
};

// The lines the recorder visited (coverage): every (chunk, line) it looked at,
// aborting ones included, with a cache of the (function, pc) pairs already
// resolved; and the instructions it recorded. The VM sends the record event
// before it records the instruction, and an abort raised there (LLEAVE at the
// first instruction past a loop, LINNER at an inner loop, a refused bytecode)
// means it never recorded it: the instruction of the last event counts once
// the recorder moves on to another one or ends the trace, and not when the
// trace aborts at it.
struct VisitedLines {
  using Pc = std::pair<const void*, int>;  // (function, pc); functions anchored
  struct PcHash {
    std::size_t operator()(const Pc& k) const {
      return std::hash<const void*>()(k.first) * 31u + static_cast<std::size_t>(k.second);
    }
  };
  struct Resolved {
    StringId source = 0;
    int line = -1;     // -1: not a line of Lua source
    int opcode = -1;   // -1: unknown
    bool counted = false;
  };
  std::unordered_map<Pc, Resolved, PcHash> resolved;
  std::set<std::pair<StringId, int>> lines;  // (source, line)
  // (source, line, opcode in the VM's numbering) of every recorded instruction:
  // a line holds code of several functions (a closure's FNEW and its own
  // return), so verify judges a prediction by its instruction.
  std::set<std::tuple<StringId, int, int>> opcodes;
  // The instruction of the last record event, not counted yet.
  std::optional<Pc> pending;

  // The recorder moved on from the pending instruction: it was recorded.
  void recorded() {
    if (!pending) return;
    auto it = resolved.find(*pending);
    pending.reset();
    if (it == resolved.end() || it->second.counted) return;
    it->second.counted = true;
    if (it->second.line >= 0 && it->second.opcode >= 0)
      opcodes.emplace(it->second.source, it->second.line, it->second.opcode);
  }
  // A trace aborted at `at`: the pending instruction, when it is that one,
  // was not recorded; any other was.
  void abortedAt(const Pc& at) {
    if (pending && *pending == at) pending.reset();
    recorded();
  }
};

// Bound on TraceCapture::locations (and the functions it keeps alive).
inline constexpr std::size_t kMaxCachedLocations = 4096;

class TraceCapture {
 public:
  // demotedOpcodes[op]: the VM's IFORL/IITERL/ILOOP/IFUNCF/IFUNCV, by its
  // numbering; maxRecords bounds the distinct events kept (TraceOptions::maxSites).
  TraceCapture(std::vector<bool> demotedOpcodes, std::size_t traceCapacity, std::size_t maxRecords);

  // What each opcode (by the VM's numbering) says of a loop's bounds: the
  // codeExtent of a trace start (trace_handler.cpp); and which ones a frame
  // below a call can be at.
  enum class LoopRole : std::uint8_t {
    None,
    End,   // FORL/ITERL and their I/J variants: jump back to the loop's first instruction
    Head,  // LOOP/ILOOP (a while or repeat loop): D jumps to the loop's exit
    Jump,  // JMP/UCLO: a while loop's back edge, the instruction before its exit
    Next,  // ITERN (a pairs/next loop, whose traces start there): its ITERL follows
    Call,      // CALL/CALLM/ITERC: a calling frame's instruction
    Return,    // RET/RET0/RET1/RETM: a down-recursion trace restarts there (lj_trace.c trace_downrec)
    TailCall,  // CALLT/CALLMT: the function's frame ends there, as at a return
    Skip,      // FORI/JFORI/ISNEXT: D jumps forward, past the loop's body or to its ITERN
  };
  std::vector<LoopRole> loopRoles;
  // (start chunk, line, pc) -> the lines its trace would have compiled.
  std::map<std::tuple<StringId, int, int>, std::pair<int, int>> extents;
  // A frame a trace's continuation returns into (a stitched trace's, or a
  // fallback exit's, inside a function the root trace inlined): its
  // function, the line it called from and what it then runs interpreted.
  struct CallerFrame {
    StringId source = 0;
    int functionLine = -1, line = 0;
    std::pair<int, int> extent{0, 0};
  };
  // A stitched trace's caller frames, read at its start (while the stack
  // holds them), by trace number; dropped when it stops or aborts.
  std::unordered_map<int, std::vector<CallerFrame>> stitchCallers;
  // The side exits (parent trace, exit number) whose side traces aborted,
  // so that an exit later left to the interpreter is told to have been
  // left after those aborts, not for another reason (maxside side traces
  // of its root: audit 51). Cleared when the traces are flushed.
  std::set<std::pair<int, int>> abortedExits;

  bool paused = false;
  const ZoneStack* zoneStack = nullptr;  // the VM's, set with the handler
  // jit.util.funcbc as a C function and the thread it is called on (anchored
  // by the handler); funcbc is null when the host's is no plain C function.
  int (*funcbc)(lua_State*) = nullptr;
  lua_State* funcbcThread = nullptr;
  std::vector<StartRecord> starts;  // by trace number; grows only past the capacity
  // The ffids of pcall and xpcall (-1 when the host has none): a split's
  // calling line is looked for across them (set with the handler).
  int pcallFfid = -1, xpcallFfid = -1;
  // The ffid of error (-1 when the host has none): a RETURN at it resumes
  // after the pcall it unwinds to.
  int errorFfid = -1;
  EventTally events;
  StringPool strings;
  VisitedLines visited;  // filled only when the record handler is attached
  // (function, pc) -> (chunk, line; -1 without one) of the aborts and trace
  // starts seen so far; the functions are anchored by the trace handler.
  struct Location {
    StringId source = 0;
    int line = -1;
    int functionLine = -1;  // its function's first line (linedefined; 0: a main chunk)
    std::pair<int, int> extent{0, 0};  // as a trace start: its extents entry, once read
  };
  std::unordered_map<std::pair<const void*, int>, Location, VisitedLines::PcHash> locations;
  // The last two entries of locations the handler used (an abort's site and
  // its trace's start), tried before hashing; cleared with locations.
  struct RecentLocation {
    const void* function = nullptr;
    int pc = 0;
    Location* at = nullptr;
  };
  RecentLocation recentLocations[2];
  std::size_t nextRecentLocation = 0;

  bool isDemotedOpcode(int op) const {
    return op >= 0 && static_cast<std::size_t>(op) < demotedOpcodes_.size() &&
           demotedOpcodes_[static_cast<std::size_t>(op)];
  }
  std::size_t traceCapacity() const { return traceCapacity_; }
  // The id of a name an event refers to (chunk name, zone path, error text).
  // Once the tally is full no new name is interned: the event is then new
  // and goes to the overflow, so the pool stops growing too.
  StringId nameId(std::string_view text) { return events.full() ? strings.find(text) : strings.intern(text); }
  // Heap bytes the capture holds (EventTally::bytesInUse and the like for the rest).
  std::size_t bytesInUse() const;
  LoopRole loopRole(int op) const {
    return op >= 0 && static_cast<std::size_t>(op) < loopRoles.size() ? loopRoles[static_cast<std::size_t>(op)]
                                                                      : LoopRole::None;
  }

 private:
  std::vector<bool> demotedOpcodes_;
  std::size_t traceCapacity_;
};

// Pushes the C trace handler for the capture: a closure over the capture, a
// preallocated table of start functions, jit.util's funcinfo, funcbc and
// traceinfo (the jit.util table must be at utilIndex) and a table anchoring
// the functions `locations` holds. jit.attach it as is.
// Upvalue kChainedHandlerUpvalue (nil at first) may be set to the handler it
// replaced: that one is then called after it with the same arguments.
void pushTraceHandler(lua_State* L, TraceCapture* capture, int utilIndex);
inline constexpr int kTraceChainUpvalue = 7;
inline constexpr int kRecordChainUpvalue = 5;
// Pushes the C handler for jit.attach(handler, "record") that fills
// capture->visited (record_handler.cpp); same utilIndex convention (it
// takes funcinfo and funcbc).
void pushRecordHandler(lua_State* L, TraceCapture* capture, int utilIndex);

}  // namespace ljcheck
