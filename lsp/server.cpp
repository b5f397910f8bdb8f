// The JSON-RPC dispatch: lifecycle (initialize, shutdown, exit), document
// sync, diagnostics pushed after every change, hover and code actions.
// Every bad message gets the error the JSON-RPC and LSP specs name and the
// server reads on; only the end of input or `exit` ends it.
#include <algorithm>
#include <exception>
#include <filesystem>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <ostream>

#include "code_actions.h"
#include "diagnostics.h"
#include "disk_view.h"
#include "documents.h"
#include "framing.h"
#include "hover.h"
#include "json_nesting.h"
#include "published_diagnostics.h"
#include "ljcheck/analyzer.h"
#include "ljcheck/lsp_server.h"
#include "ljcheck/project_analysis.h"

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
  Server(std::ostream& out, const LanguageServerOptions& options) : out_(out), options_(options), settings_(options) {
    style_.docsUrl = options.docsUrl;
  }

  // Handles one frame; false once the server should stop.
  bool handle(const lsp::Frame& frame) {
    if (frame.status == lsp::Frame::Status::BadHeader) {
      replyError(nullptr, kParseError, frame.error);
      return true;
    }
    if (lsp::nestedDeeperThan(frame.body, lsp::kMaxJsonNesting)) {
      replyError(nullptr, kInvalidRequest,
                 "message nested more than " + std::to_string(lsp::kMaxJsonNesting) + " levels deep");
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
    if (method == "initialized") return watchProjectFiles();
    if (method == "workspace/didChangeWatchedFiles") return projectFilesChanged(member(params, "changes"));
    if (method == "textDocument/didOpen") {
      const Json& item = member(params, "textDocument");
      lsp::Document& d = documents_.open(stringMember(item, "uri"), intMember(item, "version"),
                                         stringMember(item, "text"));
      if (reconfigured()) return;  // every open document, this one too, was published again
      if (inProject(d)) d.path = project_->shown(d.file);
      return analyzeAndPublish(d, lookAtDisk());
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
        if (!reconfigured()) analyzeAndPublish(*d, lookAtDisk());
      }
      return;
    }
    if (method == "textDocument/didClose") {
      std::string uri = stringMember(member(params, "textDocument"), "uri");
      std::optional<std::string> file;
      if (lsp::Document* d = documents_.find(uri); d && inProject(*d)) file = d->file;
      documents_.close(uri);
      published_.erase(uri);
      reuse_.erase(uri);
      notify("textDocument/publishDiagnostics", Json{{"uri", uri}, {"diagnostics", Json::array()}});
      if (file) {  // the file on disk counts again, unsaved changes gone
        project_->useDisk(*file);
        publishChanged(project_->update(), nullptr);
      }
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
    std::string root = workspaceRoot(params);
    std::error_code ec;
    if (!root.empty() && !std::filesystem::is_directory(root, ec)) {
      // Named but unusable: said, not passed over (the config would come from elsewhere).
      notify("window/showMessage",
             Json{{"type", 2},
                  {"message", "ljcheck: the workspace root " + root + " is not a folder: documents are analyzed on their "
                              "own, with the .ljcheck.toml found from the server's working directory"}});
      root.clear();
    }
    configure(root);
    openProject(root);
    const Json::json_pointer watch("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration");
    watchDynamic_ = params.is_object() && params.contains(watch) && params[watch] == true;
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

  // The workspace root the client names (rootUri, else the first workspace
  // folder, else rootPath); empty when it names none.
  static std::string workspaceRoot(const Json& params) {
    if (!params.is_object()) return {};
    std::string root;
    if (params.contains("rootUri") && params["rootUri"].is_string()) {
      root = lsp::uriToPath(params["rootUri"].get<std::string>());
    } else if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
               !params["workspaceFolders"].empty() && params["workspaceFolders"][0].is_object() &&
               params["workspaceFolders"][0].contains("uri") && params["workspaceFolders"][0]["uri"].is_string()) {
      root = lsp::uriToPath(params["workspaceFolders"][0]["uri"].get<std::string>());
    } else if (params.contains("rootPath") && params["rootPath"].is_string()) {
      root = params["rootPath"].get<std::string>();
    }
    return root;
  }

  // The workspace root's files are the project. No root: each document is
  // analyzed on its own.
  void openProject(const std::string& root) {
    if (root.empty()) return;
    AnalyzeOptions analyze;
    analyze.profile = &profile();
    analyze.root = root;
    analyze.minConfidence = settings_.minConfidence;
    analyze.aliases = settings_.aliases;  // the config's std and globals, as lint applies them
    analyze.cModules = settings_.cModules;
    analyze.jobs = std::max(1u, std::thread::hardware_concurrency());  // the first pass, as lint runs it
    disk_ = lsp::DiskView(root, settings_.projectFilter);
    project_.emplace(disk_.files(), analyze);
    projectRoot_ = root;
    projectOptions_ = analyze;
  }

  const RecorderProfile& profile() const { return settings_.profile ? *settings_.profile : defaultProfile(); }

  // The settings for the workspace (`root`, else the working directory),
  // with a message to the user when its config cannot be used.
  void configure(const std::string& root) {
    if (!options_.configure) return;
    std::error_code ec;
    configFolder_ = root.empty() ? std::filesystem::current_path(ec).string() : root;
    useSettings(options_.configure(configFolder_));
  }

  void useSettings(WorkspaceSettings settings) {
    settings_ = std::move(settings);
    if (!settings_.problem.empty())
      notify("window/showMessage", Json{{"type", 1}, {"message", "ljcheck: " + settings_.problem}});
  }

  // Whether the config was written, created or removed since it was read:
  // then the settings are taken again, the project is opened again under
  // them and every open document is analyzed and published again.
  bool reconfigured() {
    if (!options_.configure) return false;
    WorkspaceSettings now = options_.configure(configFolder_);
    if (now.configFile == settings_.configFile && now.configText == settings_.configText) return false;
    useSettings(std::move(now));
    reuse_.clear();
    if (project_) {
      openProject(projectRoot_);
      for (lsp::Document* d : documents_.all())
        if (inProject(*d)) project_->setText(d->file, d->text);
      project_->update();
    }
    for (lsp::Document* d : documents_.all()) {
      if (inProject(*d)) {
        d->path = project_->shown(d->file);
        if (const FileResult* result = project_->result(d->file)) d->result = *result;
        if (settings_.adjust) settings_.adjust(d->result, projectRoot_);
        publish(*d);
      } else {
        analyzeAndPublish(*d);
      }
    }
    return true;
  }

  // Files created, changed or deleted on disk (by git, a build, another
  // editor) change the project as they change lint's view of the tree: a
  // client that can watch files for the server is asked to.
  void watchProjectFiles() {
    if (!project_ || !watchDynamic_) return;
    Json watchers = Json::array({Json{{"globPattern", "**/*.lua"}}, Json{{"globPattern", "**/.ljcheck.toml"}}});
    for (const auto& glob : settings_.projectFilter.include) watchers.push_back(Json{{"globPattern", glob}});
    send(Json{{"jsonrpc", "2.0"},
              {"id", "ljcheck-watch-files"},
              {"method", "client/registerCapability"},
              {"params",
               {{"registrations", Json::array({Json{{"id", "ljcheck-project-files"},
                                                    {"method", "workspace/didChangeWatchedFiles"},
                                                    {"registerOptions", {{"watchers", watchers}}}}})}}}});
  }

  // The client reports files created, changed or deleted: the server looks
  // at the tree again (the report says that, not always all of what).
  void projectFilesChanged(const Json& changes) {
    if (!changes.is_array()) throw BadParams("'changes' is not an array");
    for (const Json& change : changes) {
      stringMember(change, "uri");
      intMember(change, "type");  // 1 created, 2 changed, 3 deleted
    }
    if (reconfigured()) return;
    if (project_ && followDisk()) publishChanged(project_->update(), nullptr);
  }

  // Takes in what changed on disk since the last look: a file written that
  // no buffer holds is read again, a created one joins, and a deletion
  // starts the project again from the tree (positions in it are its
  // files'), with the open buffers' texts. Open buffers keep their unsaved
  // text either way. True when the project changed.
  bool followDisk() {
    lsp::DiskChanges changes = disk_.refresh();
    if (changes.empty()) return false;
    std::set<std::string> open;
    for (const lsp::Document* d : documents_.all())
      if (inProject(*d)) open.insert(d->file);
    bool removed = std::any_of(changes.deleted.begin(), changes.deleted.end(),
                               [&](const std::string& f) { return project_->contains(f) && !open.count(f); });
    if (removed) {
      project_.emplace(disk_.files(), projectOptions_);
      for (lsp::Document* d : documents_.all())
        if (open.count(d->file)) project_->setText(d->file, d->text);
      return true;
    }
    for (const auto& f : changes.created) project_->addFile(f);
    for (const auto& f : changes.written)
      if (project_->contains(f) && !open.count(f)) project_->useDisk(f);
    return true;
  }

  // A document under the workspace root is analyzed as part of the project,
  // unless the config excludes it.
  bool inProject(const lsp::Document& d) const {
    if (!project_) return false;
    if (project_->contains(d.file)) return true;
    std::string shown = project_->shown(d.file);
    return !shown.empty() && shown[0] != '/' &&
           !pathMatchesGlobs(settings_.projectFilter.exclude, projectRoot_, d.file);
  }

  // Whether the config's exclude globs (absolute: addConfigGlobs) take the document.
  bool excluded(const lsp::Document& d) const {
    return !settings_.projectFilter.exclude.empty() &&
           pathMatchesGlobs(settings_.projectFilter.exclude, projectRoot_.empty() ? configFolder_ : projectRoot_, d.file);
  }

  // A client that watches no files for the server: opening or saving a
  // document is when the server looks at the tree for what changed on disk.
  bool lookAtDisk() { return project_ && !watchDynamic_ && followDisk(); }

  // `diskMoved`: the project took in changes on disk, to publish as well.
  void analyzeAndPublish(lsp::Document& d, bool diskMoved = false) {
    if (inProject(d)) {
      project_->setText(d.file, d.text);
      return publishChanged(project_->update(), &d);
    }
    if (diskMoved) publishChanged(project_->update(), nullptr);
    // A file the config excludes gets no diagnostics, as lint gives it none
    // (ESLint's editor integrations do the same for ignored files).
    if (excluded(d)) {
      d.result = FileResult{d.path, {}, {}, {}};
      return publish(d);
    }
    try {
      d.result = analyzeSource(d.text, d.path, profile(), settings_.minConfidence, settings_.aliases,
                               settings_.cModules.get(), &reuse_[d.uri]);
      if (settings_.adjust) settings_.adjust(d.result, "/");  // the document's path is absolute
    } catch (const std::exception& e) {  // a bug in one file must not end the session
      d.result = FileResult{d.path, {}, {{FileError::Kind::Input, d.path, 0, std::string("internal error: ") + e.what()}}, {}};
    }
    publish(d);
  }

  // After a project update: `edited` (always: its version moved on) and every
  // other open document of the project whose analysis the update changed.
  void publishChanged(const std::vector<std::string>& changedFiles, lsp::Document* edited) {
    std::set<std::string> changed(changedFiles.begin(), changedFiles.end());
    for (lsp::Document* d : documents_.all()) {
      if (d != edited && (!changed.count(d->file) || !inProject(*d))) continue;
      if (const FileResult* result = project_->result(d->file)) d->result = *result;
      if (settings_.adjust) settings_.adjust(d->result, projectRoot_);
      publish(*d);
    }
  }

  void publish(const lsp::Document& d) {
    // The params are JSON text already: a big file's diagnostics cost more
    // to build as json values than to analyze; and those an edit did not
    // change are copied from the last publish.
    lsp::writeFrame(out_, R"({"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":)" +
                              published_[d.uri].params(d, style_) + "}");
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
  const LanguageServerOptions& options_;
  WorkspaceSettings settings_;  // in effect: the options', or the last `configure` answer
  std::string configFolder_;    // where `configure` looks for the config
  lsp::DiagnosticStyle style_;
  lsp::DocumentStore documents_;
  std::map<std::string, lsp::PublishedDiagnostics> published_;  // by URI, of the open documents
  std::map<std::string, AnalysisReuse> reuse_;  // by URI: what the next analysis takes over
  std::optional<ProjectAnalysis> project_;  // with a workspace root
  std::string projectRoot_;
  AnalyzeOptions projectOptions_;
  lsp::DiskView disk_;  // the project's files on disk, at the last look
  bool watchDynamic_ = false;  // the client registers file watchers for the server
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
