// The JSON-RPC dispatch: lifecycle (initialize, shutdown, exit), document
// sync, diagnostics pushed after every change, hover and code actions.
// Every bad message gets the error the JSON-RPC and LSP specs name and the
// server reads on; only the end of input or `exit` ends it.
#include <exception>
#include <istream>
#include <ostream>

#include "code_actions.h"
#include "diagnostics.h"
#include "documents.h"
#include "framing.h"
#include "hover.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/lsp_server.h"

namespace ljcheck {
namespace {

using Json = nlohmann::json;
using lsp::PositionEncoding;

// JSON-RPC 2.0 and LSP error codes.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kServerNotInitialized = -32002,
};

// A request's params did not have the shape the method needs.
struct BadParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const Json& member(const Json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) throw BadParams(std::string("missing '") + key + "'");
  return object[key];
}

std::string stringMember(const Json& object, const char* key) {
  const Json& v = member(object, key);
  if (!v.is_string()) throw BadParams(std::string("'") + key + "' is not a string");
  return v.get<std::string>();
}

int intMember(const Json& object, const char* key) {
  const Json& v = member(object, key);
  if (!v.is_number_integer()) throw BadParams(std::string("'") + key + "' is not an integer");
  return v.get<int>();
}

lsp::Position positionMember(const Json& object, const char* key) {
  const Json& p = member(object, key);
  return {intMember(p, "line"), intMember(p, "character")};
}

class Server {
 public:
  Server(std::ostream& out, const LanguageServerOptions& options)
      : out_(out), profile_(options.profile ? *options.profile : defaultProfile()), options_(options) {
    style_.docsUrl = options.docsUrl;
  }

  // Handles one frame; false once the server should stop.
  bool handle(const lsp::Frame& frame) {
    if (frame.status == lsp::Frame::Status::BadHeader) {
      replyError(nullptr, kParseError, frame.error);
      return true;
    }
    Json message = Json::parse(frame.body, nullptr, false);
    if (message.is_discarded()) {
      replyError(nullptr, kParseError, "invalid JSON");
      return true;
    }
    if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
      // A response to a request the server never sends is dropped.
      if (message.is_object() && (message.contains("result") || message.contains("error"))) return true;
      replyError(message.is_object() && message.contains("id") ? message["id"] : Json(), kInvalidRequest,
                 "not a JSON-RPC request or notification");
      return true;
    }
    const std::string method = message["method"].get<std::string>();
    const bool isRequest = message.contains("id");
    const Json id = isRequest ? message["id"] : Json();
    const Json params = message.contains("params") ? message["params"] : Json::object();
    if (method == "exit") return false;
    try {
      if (isRequest) request(id, method, params);
      else notification(method, params);
    } catch (const BadParams& e) {
      if (isRequest) replyError(id, kInvalidParams, method + ": " + e.what());
      else logError(method + ": " + e.what());
    } catch (const std::exception& e) {
      if (isRequest) replyError(id, kInternalError, method + ": " + e.what());
      else logError(method + ": " + e.what());
    }
    return true;
  }

  bool shutDown() const { return shutdown_; }

 private:
  void request(const Json& id, const std::string& method, const Json& params) {
    if (method == "initialize") return initialize(id, params);
    if (!initialized_) return replyError(id, kServerNotInitialized, method + " before initialize");
    if (shutdown_) return replyError(id, kInvalidRequest, method + " after shutdown");
    if (method == "shutdown") {
      shutdown_ = true;
      return reply(id, nullptr);
    }
    if (method == "textDocument/hover") return hover(id, params);
    if (method == "textDocument/codeAction") return codeAction(id, params);
    replyError(id, kMethodNotFound, "unknown method " + method);
  }

  // Notifications get no answer: unknown ones ($/ and the rest) are ignored,
  // as are all before initialize.
  void notification(const std::string& method, const Json& params) {
    if (!initialized_ || shutdown_) return;
    if (method == "textDocument/didOpen") {
      const Json& item = member(params, "textDocument");
      lsp::Document& d = documents_.open(stringMember(item, "uri"), intMember(item, "version"),
                                         stringMember(item, "text"));
      return analyzeAndPublish(d);
    }
    if (method == "textDocument/didChange") {
      const Json& item = member(params, "textDocument");
      std::string uri = stringMember(item, "uri");
      lsp::Document* d = nullptr;
      try {
        d = &documents_.change(uri, intMember(item, "version"), member(params, "contentChanges"), style_.encoding);
      } catch (const std::invalid_argument& e) {
        throw BadParams(e.what());
      }
      return analyzeAndPublish(*d);
    }
    if (method == "textDocument/didSave") {
      if (lsp::Document* d = documents_.find(stringMember(member(params, "textDocument"), "uri"))) {
        if (params.contains("text") && params["text"].is_string()) d->text = params["text"].get<std::string>();
        analyzeAndPublish(*d);
      }
      return;
    }
    if (method == "textDocument/didClose") {
      std::string uri = stringMember(member(params, "textDocument"), "uri");
      documents_.close(uri);
      notify("textDocument/publishDiagnostics", Json{{"uri", uri}, {"diagnostics", Json::array()}});
    }
  }

  void initialize(const Json& id, const Json& params) {
    if (initialized_) return replyError(id, kInvalidRequest, "initialize sent twice");
    initialized_ = true;
    // utf-8 when the client offers it (positionEncodings, LSP 3.17), else utf-16.
    const Json* offered = nullptr;
    if (params.is_object() && params.contains("capabilities") && params["capabilities"].is_object() &&
        params["capabilities"].contains("general") && params["capabilities"]["general"].is_object() &&
        params["capabilities"]["general"].contains("positionEncodings"))
      offered = &params["capabilities"]["general"]["positionEncodings"];
    if (offered && offered->is_array())
      for (const auto& e : *offered)
        if (e == "utf-8") style_.encoding = PositionEncoding::Utf8;
    Json capabilities{
        {"positionEncoding", lsp::toString(style_.encoding)},
        {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
        {"hoverProvider", true},
        {"codeActionProvider", {{"codeActionKinds", Json::array({"quickfix"})}}},
    };
    reply(id, Json{{"capabilities", capabilities},
                   {"serverInfo", {{"name", "ljcheck"}, {"version", LJCHECK_LSP_VERSION}}}});
  }

  void hover(const Json& id, const Json& params) {
    const lsp::Document* d = documents_.find(stringMember(member(params, "textDocument"), "uri"));
    reply(id, d ? lsp::hoverAt(*d, positionMember(params, "position"), style_.encoding) : Json());
  }

  void codeAction(const Json& id, const Json& params) {
    const lsp::Document* d = documents_.find(stringMember(member(params, "textDocument"), "uri"));
    if (!d) return reply(id, Json::array());
    const Json& range = member(params, "range");
    reply(id, lsp::codeActionsFor(*d, positionMember(range, "start").line, positionMember(range, "end").line, style_));
  }

  void analyzeAndPublish(lsp::Document& d) {
    try {
      d.result = analyzeSource(d.text, d.path, profile_, options_.minConfidence, options_.aliases);
      if (options_.adjust) options_.adjust(d.result);
    } catch (const std::exception& e) {  // a bug in one file must not end the session
      d.result = FileResult{d.path, {}, {{FileError::Kind::Input, d.path, 0, std::string("internal error: ") + e.what()}}, {}};
    }
    notify("textDocument/publishDiagnostics", lsp::publishParams(d, style_));
  }

  void reply(const Json& id, Json result) {
    send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void replyError(const Json& id, int code, const std::string& message) {
    send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, Json params) {
    send(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  // Errors in notifications have no reply: the client's log shows them.
  void logError(const std::string& message) {
    notify("window/logMessage", Json{{"type", 1}, {"message", "ljcheck: " + message}});
  }
  void send(const Json& message) {
    lsp::writeFrame(out_, message.dump(-1, ' ', false, Json::error_handler_t::replace));
  }

  std::ostream& out_;
  const RecorderProfile& profile_;
  const LanguageServerOptions& options_;
  lsp::DiagnosticStyle style_;
  lsp::DocumentStore documents_;
  bool initialized_ = false;
  bool shutdown_ = false;
};

}  // namespace

int serveLanguageServer(std::istream& in, std::ostream& out, const LanguageServerOptions& options) {
  Server server(out, options);
  for (;;) {
    lsp::Frame frame = lsp::readFrame(in);
    if (frame.status == lsp::Frame::Status::End) return 1;  // the client is gone
    if (!server.handle(frame)) return server.shutDown() ? 0 : 1;
  }
}

}  // namespace ljcheck
