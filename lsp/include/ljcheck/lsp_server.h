// The language server: LSP over JSON-RPC on a pair of streams (stdio for
// `ljcheck lsp`). Pushes ljcheck's predictions as diagnostics for open
// documents, analyzed from their unsaved text. With a workspace root, the
// files under it are one project, as `ljcheck lint ROOT` sees it: an edit to
// one file re-publishes the open files whose analysis it changes.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "ljcheck/analyzer.h"
#include "ljcheck/builtin_aliases.h"
#include "ljcheck/c_modules.h"
#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"

namespace ljcheck {

// What a workspace's configuration decides (for `ljcheck lsp`:
// .ljcheck.toml and the command line).
struct WorkspaceSettings {
  const RecorderProfile* profile = nullptr;  // null: defaultProfile()
  Confidence minConfidence = Confidence::Likely;
  BuiltinAliases aliases;  // builtins under other names (.ljcheck.toml std, globals)
  // Which require names load C modules (.ljcheck.toml cpath, c-modules,
  // LUA_CPATH); null: none.
  std::shared_ptr<const CModules> cModules;
  // Applied to each analysis before it is published (the project's
  // configured reason levels), with the folder its paths are relative to
  // ("/" for absolute paths); none when empty.
  std::function<void(FileResult&, const std::string& root)> adjust;
  // Which files under the client's workspace root make up the project whose
  // cross-file calls are followed (the config's include and exclude).
  InputFilter projectFilter;
  // What the settings were read from: the config file and its text (empty:
  // none). The server asks again when files change and compares these.
  std::string configFile, configText;
  // Why the config could not be used, for the user (window/showMessage);
  // the settings are then those without it.
  std::string problem;
};

struct LanguageServerOptions : WorkspaceSettings {
  // The folder holding reasons/ as a URI ending in '/', for codeDescription.href;
  // empty: diagnostics carry no link.
  std::string docsUrl;
  // The settings for a workspace folder: asked at `initialize` with the
  // client's root (the server's working directory when it names none), and
  // again after files change on disk or a document is opened or saved,
  // when the answer's config file or text differs the open documents are
  // analyzed again under it. Empty: the settings above, for good.
  std::function<WorkspaceSettings(const std::string& folder)> configure;
};

// Serves until `exit` or the end of `in`. Returns the process exit code the
// protocol names: 0 after shutdown then exit, 1 otherwise.
int serveLanguageServer(std::istream& in, std::ostream& out, const LanguageServerOptions& options);

}  // namespace ljcheck
