// A file's source map (see source_map.h): its tokens indexed for ranges,
// and allow comments from a tree-sitter parse.
#include "ljcheck/source_map.h"

#include <tree_sitter/api.h>

#include "ljcheck/syntax_cache.h"
#include "source/suppressions.h"
#include "source/syntax_index.h"

extern "C" const TSLanguage* tree_sitter_lua(void);

namespace ljcheck {

SourceMap::SourceMap(std::string_view source, SyntaxCache* cache)
    : source_(source), syntax_(cache ? cache->indexOf(source) : std::make_shared<const SyntaxIndex>(source)) {
  lineStarts_.push_back(0);
  for (std::size_t i = source.find('\n'); i != std::string_view::npos; i = source.find('\n', i + 1))
    lineStarts_.push_back(i + 1);
  // Suppressions need statements delimited exactly: tree-sitter, only in
  // the files that have an allow comment at all.
  if (source.find("ljcheck:") == std::string_view::npos) return;
  TSParser* parser = ts_parser_new();
  if (ts_parser_set_language(parser, tree_sitter_lua())) {
    TSTree* tree = ts_parser_parse_string(parser, nullptr, source.data(), static_cast<uint32_t>(source.size()));
    if (tree) {
      SuppressionComments found = suppressionComments(ts_tree_root_node(tree), source);
      allows_ = std::move(found.allows);
      unpaired_ = std::move(found.unpaired);
      ts_tree_delete(tree);
    }
  }
  ts_parser_delete(parser);
}

SourceMap::~SourceMap() = default;

std::string_view SourceMap::lineText(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > lineStarts_.size()) return {};
  std::size_t start = lineStarts_[static_cast<std::size_t>(line - 1)];
  std::size_t end = source_.find('\n', start);
  if (end == std::string_view::npos) end = source_.size();
  return source_.substr(start, end - start);
}

}  // namespace ljcheck
