// The capture buffers, sized once at session start (see trace_capture.h).
#include "trace_capture.h"

#include <utility>

namespace ljcheck {

TraceCapture::TraceCapture(std::vector<bool> demotedOpcodes, std::size_t traceCapacity, std::size_t maxRecords)
    : starts(traceCapacity + 1), events(maxRecords), demotedOpcodes_(std::move(demotedOpcodes)),
      traceCapacity_(traceCapacity) {}

std::size_t TraceCapture::bytesInUse() const {
  // A tree node: three pointers and a colour beside its value.
  constexpr std::size_t kTreeNode = 4 * sizeof(void*);
  return events.bytesInUse() + strings.bytesInUse() + starts.capacity() * sizeof(StartRecord) +
         extents.size() * (kTreeNode + sizeof(decltype(extents)::value_type)) +
         visited.resolved.size() * (sizeof(decltype(visited.resolved)::value_type) + 2 * sizeof(void*)) +
         visited.resolved.bucket_count() * sizeof(void*) +
         visited.lines.size() * (kTreeNode + sizeof(std::pair<StringId, int>)) +
         visited.opcodes.size() * (kTreeNode + sizeof(std::tuple<StringId, int, int>));
}

}  // namespace ljcheck
