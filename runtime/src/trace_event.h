// Raw trace events as the handler captures them: small PODs that hold no Lua
// object and no resolved name, so a capture can be drained after its VM is
// gone and, later, merged from per-thread chunks. Names and reasonIds are
// resolved at aggregation (site_aggregator.cpp) through the live profile.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <type_traits>

#include "ljcheck/abort_mapping.h"

namespace ljcheck {

// ExitFallback: a side exit the VM left to the interpreter (-jv: "fallback
// to interpreter"): after hotexit + tryside exits, or once its root trace has
// maxside side traces, lj_record.c links the exit to a stub trace that returns
// to the interpreter. Its start fields name the exit; it is no site of its
// own but gives the side-trace aborts that started there an extent.
// CallerExtent: for such an exit, a stitched trace's start or a Return,
// inside a function the root trace inlined, one frame it returns into, up
// to the root's own: `source`, `line` and `functionLine` name the frame and
// the call it was on, the extent what that frame then runs interpreted; the
// start fields name the exit, the stitched start or the Return's call.
enum class TraceEventKind : std::uint8_t { Abort, Stitch, Return, ExitFallback, CallerExtent };

// Subject of an event: a VM number (NYIBC opcode, NYIIR op, ffid), or
// kNoSubject / kPlainCFunction (ljcheck/abort_mapping.h).

// Ids into a StringPool; 0 is the empty string.
using StringId = std::uint32_t;
// StringPool::find's answer for a text the pool does not hold.
inline constexpr StringId kNotInterned = 0xffffffffu;

struct TraceEvent {
  TraceEventKind kind = TraceEventKind::Abort;
  // Abort of a root trace whose start op is now demoted, or of a stitched
  // trace (its parent is then linked to itself: never stitched again there).
  bool blacklistedStart = false;
  // Of an ExitFallback: its exit's side traces aborted before it was left
  // to the interpreter; without, it was left for another reason (the root
  // already has maxside side traces), and no abort site is charged for it.
  bool afterAborts = false;
  // Of an ExitFallback, the parent trace and its exit number, so that each
  // exit is one record, as -jv counts them.
  std::int32_t code = -1;            // trace-error number; -1: the error was not a number
  std::int32_t subject = kNoSubject; // numeric info, or the ffid of a function info / callee
  StringId errorText = 0;            // a non-number error object, as text
  StringId source = 0;               // chunk name of the location's Lua frame (0: unknown)
  std::int32_t line = 0;
  StringId zone = 0;                 // zone path open at the event (zones: later)
  StringId startSource = 0;          // start site of the aborted trace (-jv's "start")
  std::int32_t startLine = 0;
  std::int32_t startPc = 0;
  std::int32_t startFunctionLine = -1;  // the start function's first line (0: a main chunk)
  // Lines of the code a root trace would have compiled: the loop it started
  // at, or the whole start function (a function trace, a while/repeat
  // loop); for a stitched trace, from its call to the end of the loop (or
  // function) around it; for an ExitFallback, and for a Return (whose start
  // fields name its own call), the same from there. 0 for a side trace's
  // abort: its parent keeps running.
  std::int32_t extentFirstLine = 0;
  std::int32_t extentLastLine = 0;
  std::int32_t functionLine = -1;  // CallerExtent: the first line of the function `source` names
};
static_assert(std::is_trivially_copyable_v<TraceEvent>, "events are copied between buffers");

// Interned strings (chunk names, error texts): ids stay valid for the pool's
// life; lookups of known strings do not allocate.
class StringPool {
 public:
  StringPool() { intern({}); }
  StringPool(const StringPool&) = delete;  // the views would point into the original
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;  // a deque keeps element addresses when moved
  StringPool& operator=(StringPool&&) = default;
  StringId intern(std::string_view text) {
    auto it = ids_.find(text);
    if (it != ids_.end()) return it->second;
    const std::string& stored = texts_.emplace_back(text);
    auto id = static_cast<StringId>(texts_.size() - 1);
    ids_.emplace(std::string_view(stored), id);
    return id;
  }
  // The id of text when the pool holds it, else kNotInterned; never allocates.
  StringId find(std::string_view text) const {
    auto it = ids_.find(text);
    return it == ids_.end() ? kNotInterned : it->second;
  }
  const std::string& text(StringId id) const { return texts_.at(id); }
  // Heap bytes held: the texts and the index (container sizes; allocator overhead not counted).
  std::size_t bytesInUse() const {
    std::size_t bytes = ids_.bucket_count() * sizeof(void*);
    for (const std::string& t : texts_) bytes += sizeof(std::string) + t.capacity() + 4 * sizeof(void*);
    return bytes;
  }

 private:
  std::deque<std::string> texts_;  // stable addresses for the views below
  std::unordered_map<std::string_view, StringId> ids_;
};

}  // namespace ljcheck
