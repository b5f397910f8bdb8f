// Content-Length framing. A bad header block is reported, not fatal: the
// reader resynchronises on the next line that carries a Content-Length.
#include "framing.h"

#include <charconv>
#include <istream>
#include <ostream>

namespace ljcheck::lsp {
namespace {

constexpr std::string_view kLengthHeader = "Content-Length:";
// Larger bodies are refused (and skipped): no editor sends a 64 MiB message.
constexpr std::size_t kMaxBody = std::size_t{64} << 20;

// The value of a Content-Length header found anywhere on `line` (after a
// skipped body, the next header may follow it on the same line).
bool parseLength(std::string_view line, std::size_t& length, std::string& error) {
  std::size_t at = line.find(kLengthHeader);
  if (at == std::string_view::npos) return false;
  std::string_view value = line.substr(at + kLengthHeader.size());
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
    error = "bad Content-Length '" + std::string(value) + "'";
    length = 0;
    return true;
  }
  if (length > kMaxBody) error = "Content-Length " + std::to_string(length) + " over the limit";
  return true;
}

}  // namespace

Frame readFrame(std::istream& in) {
  Frame frame;
  bool sawLength = false, sawAnything = false;
  std::size_t length = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!sawAnything) continue;  // stray blank lines between messages
      break;
    }
    sawAnything = true;
    if (parseLength(line, length, frame.error)) sawLength = true;
  }
  if (!sawAnything) return frame;  // End
  if (!sawLength || !frame.error.empty()) {
    if (frame.error.empty()) frame.error = "header without Content-Length";
    if (length > kMaxBody) in.ignore(static_cast<std::streamsize>(length));
    frame.status = Frame::Status::BadHeader;
    return frame;
  }
  frame.body.resize(length);
  in.read(frame.body.data(), static_cast<std::streamsize>(length));
  if (static_cast<std::size_t>(in.gcount()) != length) return Frame{};  // cut off: the client is gone
  frame.status = Frame::Status::Message;
  return frame;
}

void writeFrame(std::ostream& out, const std::string& body) {
  out << kLengthHeader << ' ' << body.size() << "\r\n\r\n" << body;
  out.flush();
}

}  // namespace ljcheck::lsp
