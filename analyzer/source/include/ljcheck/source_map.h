// What the source text adds to a prediction: the range of the construct
// (from the file's tokens and their nesting, or a scan of the VM's line
// where they do not show it), and `-- ljcheck: allow(ID, ...)` suppressions.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

namespace ljcheck {

// What the bytecode tells about a predicted construct: enough to find it.
struct ConstructSite {
  int line = 0;                // the VM's line of its instruction
  std::string_view construct;  // closure, upvalue close, loop, return, vararg, call, metamethod
  std::string_view callee;     // for calls: the resolved name, e.g. string.gsub; metamethods: "lpeg __mul"
  int occurrence = 0;          // for calls: see Prediction::occurrence
  bool inLoop = false;         // it runs in a loop body of its own function
  int functionLine = -1;       // see Prediction::functionLine
};

struct SyntaxIndex;
class SyntaxCache;

class SourceMap {
 public:
  // `cache`: the document's last token index (syntax_cache.h), taken over
  // when it is this source's; null for none.
  explicit SourceMap(std::string_view source, SyntaxCache* cache = nullptr);
  ~SourceMap();
  SourceMap(const SourceMap&) = delete;
  SourceMap& operator=(const SourceMap&) = delete;

  // The construct's range (see Prediction::range); not found when neither
  // the tokens nor the line show it.
  SourceRange locate(const ConstructSite& site) const;
  // True when an allow comment covers this line for this reasonId (an ID
  // names itself, or a CODE all its subjects: allow(NYIBC) covers NYIBC:FNEW).
  bool suppressed(int line, const ReasonId& reasonId) const;
  // As suppressed(), and records which allow IDs covered it, for
  // directiveProblems().
  bool suppress(int line, const ReasonId& reasonId);
  // Unpaired push/pop markers, allow IDs that name nothing `profile` or the
  // reason catalog knows (unknown-reason; none when `profile` is null), and
  // the other allow IDs no suppress() call used, under `path`; severities
  // are left at warning for the caller to set.
  std::vector<DirectiveProblem> directiveProblems(const std::string& path,
                                                  const RecorderProfile* profile = nullptr) const;

  enum class AllowForm { Line, NextStatement, Block, File };
  struct Allow {
    int firstLine = 0, lastLine = 0;  // 0, 0: the whole file
    std::vector<std::string> ids;
    std::vector<SourcePosition> idStarts;  // per ID, where it stands in the comment
    AllowForm form = AllowForm::Line;
    int commentLine = 0, commentColumn = 0;  // where the comment starts
    std::vector<bool> used;                  // per ID, set by suppress()
  };
  const std::vector<Allow>& allows() const { return allows_; }
  // Line `line`'s text without its newline; empty past the end.
  std::string_view lineText(int line) const;

 private:
  SourceRange scanLine(const ConstructSite& site) const;  // columns.cpp
  std::string_view source_;
  std::vector<std::size_t> lineStarts_;
  std::vector<Allow> allows_;
  std::vector<DirectiveProblem> unpaired_;
  std::shared_ptr<const SyntaxIndex> syntax_;
};

}  // namespace ljcheck
