// The interface every rule family implements, and what a rule sees of one
// prototype. A rule reads bytecode, loops and values and emits predictions;
// it knows nothing about files, options or output formats.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flow/call_graph.h"
#include "flow/loops.h"
#include "flow/values.h"
#include "ljcheck/bytecode.h"
#include "ljcheck/prediction.h"
#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

namespace ljcheck::rules {

struct FunctionView {
  const bytecode::Chunk& chunk;
  std::size_t index;  // into chunk.prototypes
  const bytecode::Prototype& proto;
  const flow::LoopMap& loops;
  const flow::ValueMap& values;
  const flow::CallGraph& calls;
  const RecorderProfile& profile;
  const ReasonCatalog& catalog;
  bool isMain() const { return index + 1 == chunk.prototypes.size(); }
};

// What a rule says about one instruction; the sink turns it into a Prediction
// with class and severity from the catalog and the context.
struct Finding {
  int pc = 0;
  std::size_t proto = SIZE_MAX;  // where pc is; SIZE_MAX: the function being checked
  std::string reasonId;
  std::string construct;
  std::string callee;
  std::string message;
};

class PredictionSink {
 public:
  virtual ~PredictionSink() = default;
  virtual void report(const FunctionView& fn, Finding finding) = 0;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string_view name() const = 0;
  virtual void check(const FunctionView& fn, PredictionSink& sink) const = 0;
};

// Every rule family, in a fixed order (all_rules.cpp).
const std::vector<std::unique_ptr<Rule>>& allRules();

// Shared helpers for rules.
Context contextOf(const flow::CallGraph& calls, const bytecode::Chunk& chunk, std::size_t proto, int pc);
// Code that never runs hot (the main chunk outside loops, functions not
// known to be called from a loop) is never traced: rules say nothing there.
inline bool runsHot(const FunctionView& fn, int pc) { return fn.calls.runsHot(fn.index, pc); }
// The recorder stops at the first abort on a path: an FNEW earlier in the
// same loop body (or function body) that runs every time hides whatever
// comes after it, unless a call in between can start a trace that returns
// past the FNEW.
bool maskedByEarlierAbort(const FunctionView& fn, int pc);
// The callee a CALL-like instruction at pc invokes, as far as values tell.
flow::Value calleeAt(const FunctionView& fn, int pc);

}  // namespace ljcheck::rules
