// Open documents and incremental text sync.
#include "documents.h"

#include <stdexcept>

namespace ljcheck::lsp {
namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Position readPosition(const nlohmann::json& p) {
  if (!p.is_object() || !p.contains("line") || !p.contains("character") || !p["line"].is_number_integer() ||
      !p["character"].is_number_integer())
    throw std::invalid_argument("a change range position needs integer line and character");
  return {p["line"].get<int>(), p["character"].get<int>()};
}

}  // namespace

std::string uriToPath(const std::string& uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.compare(0, scheme.size(), scheme) != 0) return uri;
  std::string path;
  for (std::size_t i = scheme.size(); i < uri.size(); ++i) {
    int hi = 0, lo = 0;
    if (uri[i] == '%' && i + 2 < uri.size() && (hi = hexDigit(uri[i + 1])) >= 0 && (lo = hexDigit(uri[i + 2])) >= 0) {
      path += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      path += uri[i];
    }
  }
  return path;
}

Document& DocumentStore::open(const std::string& uri, int version, std::string text) {
  Document& d = documents_[uri];
  std::string file = uriToPath(uri);
  d = Document{uri, file, file, version, std::move(text), {}};
  return d;
}

Document& DocumentStore::change(const std::string& uri, int version, const nlohmann::json& contentChanges,
                                PositionEncoding encoding) {
  Document* d = find(uri);
  if (!d) throw std::invalid_argument("document not open: " + uri);
  if (!contentChanges.is_array()) throw std::invalid_argument("contentChanges is not an array");
  std::string text = d->text;
  for (const auto& change : contentChanges) {
    if (!change.is_object() || !change.contains("text") || !change["text"].is_string())
      throw std::invalid_argument("a content change without text");
    const std::string& inserted = change["text"].get_ref<const std::string&>();
    if (!change.contains("range")) {
      text = inserted;
      continue;
    }
    const auto& range = change["range"];
    if (!range.is_object() || !range.contains("start") || !range.contains("end"))
      throw std::invalid_argument("a change range needs start and end");
    LineIndex lines(text);
    std::size_t start = lines.offset(readPosition(range["start"]), encoding);
    std::size_t end = lines.offset(readPosition(range["end"]), encoding);
    if (end < start) throw std::invalid_argument("a change range ends before it starts");
    text.replace(start, end - start, inserted);
  }
  d->text = std::move(text);
  d->version = version;
  return *d;
}

void DocumentStore::close(const std::string& uri) { documents_.erase(uri); }

Document* DocumentStore::find(const std::string& uri) {
  auto it = documents_.find(uri);
  return it == documents_.end() ? nullptr : &it->second;
}

std::vector<Document*> DocumentStore::all() {
  std::vector<Document*> out;
  for (auto& [uri, d] : documents_) out.push_back(&d);
  return out;
}

}  // namespace ljcheck::lsp
