// The capture buffers, sized once at session start (see trace_capture.h).
#include "trace_capture.h"

#include <utility>

namespace ljcheck {

TraceCapture::TraceCapture(std::vector<bool> demotedOpcodes, std::size_t traceCapacity)
    : starts(traceCapacity + 1), demotedOpcodes_(std::move(demotedOpcodes)),
      traceCapacity_(traceCapacity) {
  events.reserve(1024);
}

}  // namespace ljcheck
