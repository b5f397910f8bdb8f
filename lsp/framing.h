// The base protocol's framing: `Content-Length: N` headers, a blank line,
// then N bytes of JSON.
#pragma once

#include <iosfwd>
#include <string>

namespace ljcheck::lsp {

struct Frame {
  enum class Status { Message, BadHeader, End };
  Status status = Status::End;
  std::string body;   // Message: the JSON text
  std::string error;  // BadHeader: what was wrong
};

// Reads the next frame. A header block without a valid Content-Length is
// BadHeader (the caller answers and reads on); End at the end of `in`.
Frame readFrame(std::istream& in);

void writeFrame(std::ostream& out, const std::string& body);

}  // namespace ljcheck::lsp
