// The error a trace or sample session raises: misuse (a second session,
// stopping twice, bad options) and VM problems (no jit.attach, no profiler).
#pragma once

#include <stdexcept>

namespace ljcheck {

class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ljcheck
