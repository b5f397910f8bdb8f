// libFuzzer harness for the language server (lsp/): the bytes are what a
// client writes to `ljcheck lsp`'s stdin, headers and Content-Length framing
// included, served over in-memory streams exactly as the stdio server runs.
// Lifecycle, document sync (incremental ranges anywhere, invalid UTF-16
// positions), analysis, diagnostics, hover and code actions are all reached
// from the seeds (recorded sessions, fuzz/make_seeds.sh). The server must
// answer every bad message with a JSON-RPC error and read on: a crash, a
// hang, a leak, undefined behaviour, an exception escaping, an exit code
// other than 0 or 1, or an output frame that is not a JSON-RPC message is a
// finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "framing.h"
#include "ljcheck/lsp_server.h"
#include "ljcheck/profile.h"
#include "nlohmann/json.hpp"

namespace {

ljcheck::LanguageServerOptions options;

// Everything the server wrote must be well-framed JSON-RPC 2.0 objects.
void checkOutput(const std::string& written) {
  std::istringstream in(written);
  for (;;) {
    ljcheck::lsp::Frame frame = ljcheck::lsp::readFrame(in);
    if (frame.status == ljcheck::lsp::Frame::Status::End) return;
    if (frame.status != ljcheck::lsp::Frame::Status::Message) std::abort();
    auto message = nlohmann::json::parse(frame.body, nullptr, false);
    if (!message.is_object() || message.value("jsonrpc", "") != "2.0") std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Loaded once: parsing a profile per input would dominate the run.
  options.profile = &ljcheck::defaultProfile();
  options.minConfidence = ljcheck::Confidence::Possible;  // the most diagnostics, hovers and actions
  options.docsUrl = "file:///docs/reasons/";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  const int code = ljcheck::serveLanguageServer(in, out, options);
  if (code != 0 && code != 1) std::abort();
  checkOutput(out.str());
  return 0;
}
