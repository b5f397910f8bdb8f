// The documents the client has open: their text, version and the last
// analysis, kept in step with didOpen / didChange (incremental) / didClose.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ljcheck/prediction.h"
#include "positions.h"

namespace ljcheck::lsp {

struct Document {
  std::string uri;
  std::string file;  // the file path the URI names
  std::string path;  // that file as the analyzer reports it (relative to the workspace root in a project)
  int version = 0;
  std::string text;
  FileResult result;  // the analysis of `text`
};

// The file path of a file:// URI (percent-decoded); the URI itself otherwise.
std::string uriToPath(const std::string& uri);

class DocumentStore {
 public:
  Document& open(const std::string& uri, int version, std::string text);
  // Applies contentChanges in order (each with a range is incremental; one
  // without replaces the text). Throws std::invalid_argument naming what was
  // wrong; the document is left as it was.
  Document& change(const std::string& uri, int version, const nlohmann::json& contentChanges,
                   PositionEncoding encoding);
  void close(const std::string& uri);
  Document* find(const std::string& uri);
  std::vector<Document*> all();

 private:
  std::map<std::string, Document> documents_;
};

}  // namespace ljcheck::lsp
