// Turns rule findings into Predictions: class and severity from the catalog,
// raised by context (a blocker in a loop body predicts blacklisting),
// confidence lowered where the code is only possibly hot, line from the
// bytecode, enclosing function name from the parent's bytecode. Sites that
// an earlier certain abort hides on every path are kept, marked maskedBy; so
// are sites behind a call to a function of the file that aborts every trace
// before it returns (masking.h, closingReturnLine).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rules/jit_settings.h"
#include "rules/masking.h"
#include "rules/members_behind_aborts.h"
#include "rules/rule.h"

namespace ljcheck::rules {

class CollectingSink final : public PredictionSink {
 public:
  explicit CollectingSink(std::string path) : path_(std::move(path)) {}
  // Other modules' functions ("module:member") every trace through which
  // aborts, and where: a call of one masks the sites behind it as a call of
  // this file's closure maker does (ModuleImports::abortSites). May be null.
  using AbortSites = std::map<std::string, MaskingSite, std::less<>>;
  void maskBehindModuleCalls(const AbortSites* sites) { moduleAborts_ = sites; }
  void report(const FunctionView& fn, Finding finding) override;
  // The predictions at or above `minConfidence`, one per (line, reasonId),
  // masked ones with maskedBy set.
  std::vector<Prediction> take(Confidence minConfidence);
  // Before take(): whether a site a masking call could hide lies in
  // prototype `proto` after pc `after`, up to pc `last`.
  bool hasSiteBetween(std::size_t proto, int after, int last) const {
    for (const Pending& p : pending_)
      if (p.proto == proto && p.tracePc > after && p.tracePc <= last && !p.unmaskable) return true;
    return false;
  }
  // After take(): the other modules' functions called between a masked site
  // and the abort that masks it (members_behind_aborts.h).
  std::set<std::string> membersBehindAborts() const {
    return behindAborts_ ? behindAborts_->members() : std::set<std::string>{};
  }

 private:
  struct Pending {
    Prediction prediction;
    std::size_t proto = 0;  // where the trace stops
    int tracePc = 0;
    bool certainAbort = false;
    // Any trace that gets to it aborts there: a certain abort, or a
    // closure or upvalue close whose confidence is only about being reached.
    bool abortsWhenReached = false;
    bool unmaskable = false;  // Finding::calleeTraces
    // It ends the trace on the passes the data sends there (an error
    // raised under a pcall, likely): a site after it may never be recorded.
    bool mayEndTrace = false;
    // It likely aborts the trace (an abort whose cause only the data
    // settles): a certain site that every path reaches through it may
    // never be recorded.
    bool likelyAbort = false;
    // It aborts inside a lazy initialization (`if not self._fmt then
    // self._fmt = function ... end end`): the guard's line, else 0.
    int onceOnlyLine = 0;
    bool passesEndInterpreted = false;  // Finding::passesEndInterpreted
  };
  // Aborts that may hide the sites behind them, by prototype in pc order,
  // and the Masking of each prototype, built when first asked.
  class Maskers {
   public:
    Maskers(const CollectingSink& sink, bool (*isMasker)(const Pending&));
    bool empty() const { return byProto_.empty(); }
    // The first of them that every path to `site` runs through, in its
    // loop body (Masking::firstMasker); null when none. `pc` gets its pc.
    const Pending* firstHiding(const Pending& site, int* pc = nullptr);
    // The same for the instruction at `at` of prototype `proto`.
    const Pending* hidingAt(std::size_t proto, int at, int* pc = nullptr);
    // How the paths to `site` in its body meet them (Masking::pathsTo):
    // the one that with others hides it on every path, or the one some
    // path runs into first; null for none.
    struct OnPaths {
      const Pending* every = nullptr;
      const Pending* some = nullptr;
    };
    OnPaths pathsTo(const Pending& site);

   private:
    const Masking& maskingOf(std::size_t proto);
    const CollectingSink& sink_;
    std::map<std::size_t, std::vector<const Pending*>> byProto_;
    std::map<std::size_t, Masking> masking_;
  };
  // A pc that hides the sites behind it, and the abort that does.
  struct Masker {
    int pc = 0;
    MaskingSite site;
  };
  std::vector<Masker> closingCalls(std::size_t proto);
  bool startsNoTrace(std::size_t proto, int pc) const;
  std::vector<int> closingLine_;  // by prototype: closingReturnLine, -1 until asked
  void markMasked();
  void markMaskedByCalls();
  void markOnAbortingPaths();
  // Certain sites something before them may keep every trace from
  // (sites_after_doubts.cpp).
  void markAfterUnsureLoops();
  void markAfterInterpretedLoops();
  void markAfterErrorPaths();
  void markAfterLikelyAborts();
  void markAfterLazyInits();

  std::string path_;
  const bytecode::Chunk* chunk_ = nullptr;
  const flow::ValueMap* values_ = nullptr;
  const flow::CallGraph* calls_ = nullptr;
  bool uclosAbort_ = false;  // the profile's recorder refuses UCLO
  const AbortSites* moduleAborts_ = nullptr;
  std::vector<Pending> pending_;
  std::optional<MembersBehindAborts> behindAborts_;
  std::map<std::size_t, std::vector<bool>> reached_;  // by prototype: flow::reachablePcs, once asked
  // By prototype: the first Masking built, whose maskers-free part the
  // other sets of maskers (Maskers) take over.
  mutable std::map<std::size_t, Masking> maskingBases_;
  std::optional<JitSettings> jitSettings_;             // the file's, once asked
};

// What becomes of an abort that only side traces record, for reasoning
// sentences: no trace start is blacklisted, but after `tryside` failed side
// traces (lj_record.c: hotexit + tryside exits) the VM links their exit to
// the interpreter, and the passes that take it run interpreted from there.
std::string sideTraceFate(const RecorderProfile& profile);

// "name" for a named function, "<main>" for the chunk, "<anonymous:LINE>".
// Kept in fn.names when it has one.
std::string functionName(const FunctionView& fn, std::size_t index);

// The names functionName() gave, by prototype: every finding and many
// reasoning sentences name their function, often the same one.
struct FunctionNames {
  explicit FunctionNames(std::size_t prototypes) : byProto(prototypes) {}
  std::vector<std::optional<std::string>> byProto;
};

}  // namespace ljcheck::rules
