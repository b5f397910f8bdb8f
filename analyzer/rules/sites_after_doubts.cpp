// What a certain site becomes when something before it may keep every trace
// from getting there (see prediction_sink.h, CollectingSink::take): a loop
// whose trace may link elsewhere, an inner loop whose passes finish
// interpreted, a raised error, a likely abort, a lazy initialization.
#include <map>

#include "flow/instruction_effects.h"
#include "flow/loops.h"
#include "rules/masking.h"
#include "rules/prediction_sink.h"

namespace ljcheck::rules {

using bytecode::Op;

// A site every path to which runs into an abort in its body, though no one
// abort is on them all (a closure on each branch of an `if`, audit 106's
// wsapi.request.new): masked, by the lowest of them. A certain site some
// path to which does, while another does not (a closure behind a test the
// data decides, audit 106's cgilua parsequery and its UCLO on the path
// that skips it): the passes that take the first abort there, and whether
// any pass takes the other the data decides: likely.
void CollectingSink::markOnAbortingPaths() {
  Maskers maskers(*this, [](const Pending& m) { return m.abortsWhenReached; });
  if (maskers.empty()) return;
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.masked() || site.unmaskable || site.tracePc <= 1) continue;
    const auto [every, some] = maskers.pathsTo(site);
    if (every) {
      p.maskedBy = MaskingSite{every->prediction.path, every->prediction.line, every->prediction.reasonId, {}};
      p.reasoning += "; every path to it in its " + std::string(calls_->loopMap(site.proto).innermost(site.tracePc)
                                                                   ? "loop body"
                                                                   : "function") +
                     " runs into an abort first, the first at line " + std::to_string(every->prediction.line) +
                     ", though no one abort is on them all";
      continue;
    }
    if (!some || p.confidence != Confidence::Certain) continue;
    const Prediction& first = some->prediction;
    p.confidence = Confidence::Likely;
    // The passes that reach neither abort here nor there: the start is
    // blacklisted either way when that abort would blacklist it too.
    const bool eitherWay = p.severity == Severity::Blacklist && first.severity == Severity::Blacklist;
    if (p.severity == Severity::Blacklist && !eitherWay) p.severity = Severity::Warn;
    const bool closure = first.reasonId == ReasonId::refusedBytecode("FNEW");  // its line is the closure's `end`
    p.reasoning += "; but the passes that get to " +
                   (closure ? "the closure ending at line " : std::string("line ")) + std::to_string(first.line) +
                   " abort there first (" + first.reasonId.str() +
                   "), and only the others reach this, so which of the two a trace records the data decides: likely" +
                   (eitherWay ? ", and the trace start is blacklisted either way" : "");
  }
}

// A certain site whose last call before it in its loop body (or function
// body) may run a loop: a root trace stops at that loop, so only the side
// trace from the loop's exit records the site, and the bytecode does not
// make sure that one forms and returns here (callRunsLoop's `sure`) when
// the call is a guess (a callee the file does not resolve, taken to loop
// over the function it gets) behind an abort every pass runs, or a
// function of this file whose loop calls a function that runs a loop (its
// trace links to that loop's). Audit 97:
// a closure after `:map(function ... end)` that aborted every call, and
// after `reduce(rows, f)`, whose loop's trace linked to sum's; `-jv`
// recorded neither.
void CollectingSink::markAfterUnsureLoops() {
  Maskers maskers(*this, [](const Pending& m) { return m.certainAbort; });
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence != Confidence::Certain || p.masked() || site.unmaskable || site.tracePc <= 1) continue;
    const bytecode::Prototype& code = chunk_->prototypes[site.proto];
    const flow::LoopMap& loops = calls_->loopMap(site.proto);
    const flow::Loop* around = loops.innermost(site.tracePc);
    const int first = around ? around->first : 1;
    int call = 0;
    bool sure = false;
    for (int q = site.tracePc - 1; q >= first && call == 0; --q) {
      if (loops.innermost(q) != around) break;  // a loop between: its exit's side trace comes after the call
      if (flow::isCallOrIterator(code.at(q).op) && callRunsLoop(*chunk_, site.proto, *values_, *calls_, q, &sure))
        call = q;
    }
    if (call == 0 || sure) continue;
    flow::Value callee = values_->at(site.proto, call, flow::calleeSlot(code.at(call)));
    if (callee.is(flow::Value::Kind::Method)) callee = values_->resolveMethod(callee);
    const Pending* before = maskers.empty() ? nullptr : maskers.hidingAt(site.proto, call);
    if (!callee.is(flow::Value::Kind::LuaFunction) && !before) continue;
    p.confidence = Confidence::Likely;
    if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
    p.reasoning += "; but ";
    if (before)
      p.reasoning += "every pass runs the abort reported at line " + std::to_string(before->prediction.line) + " (" +
                     before->prediction.reasonId.str() + ") before it reaches the call at line " +
                     std::to_string(code.at(call).line) + ", and ";
    p.reasoning += "only the side trace from the exit of the loop " +
                   std::string(before ? "that call" : "the call at line " + std::to_string(code.at(call).line)) +
                   (callee.is(flow::Value::Kind::LuaFunction) ? " runs" : " may run") +
                   " records this site; whether one forms and returns here the bytecode does not show (" +
                   (callee.is(flow::Value::Kind::LuaFunction)
                        ? "that loop calls a function that runs a loop, whose trace it may link to instead"
                        : "the callee is not resolved here, and is taken to loop over the function it gets") +
                   "), so likely";
  }
}

// Certain sites behind a call, in the same loop body (or function body),
// of a function that raises an error a pcall catches (RETURN:error,
// likely): on the passes that raise it the trace ends there, and when
// every pass does, no trace records the site (audit 68: `pcall(must,
// nil, "missing")`, raising on every pass, then a certain RETURN:error
// `-jv` never shows). Whether the error is raised, the data decides: likely.
void CollectingSink::markAfterErrorPaths() {
  std::map<std::size_t, const Prediction*> raising;  // by prototype: its first such error
  for (const auto& m : pending_)
    if (m.mayEndTrace) raising.emplace(m.proto, &m.prediction);
  if (raising.empty()) return;
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence != Confidence::Certain || p.masked() || site.proto >= chunk_->prototypes.size()) continue;
    const auto& code = chunk_->prototypes[site.proto];
    const flow::Loop* loop = calls_->loopMap(site.proto).innermost(site.tracePc);
    for (int q = loop ? loop->first : 1; q < site.tracePc && q <= code.size(); ++q) {
      const auto& ins = code.at(q);
      if (ins.op != Op::CALL && ins.op != Op::CALLM) continue;
      flow::Value callee = values_->at(site.proto, q, flow::calleeSlot(ins));
      if (callee.is(flow::Value::Kind::LibFunction) && (callee.name == "pcall" || callee.name == "xpcall"))
        callee = values_->at(site.proto, q, flow::argumentSlot(*chunk_, ins, 0));
      if (!callee.is(flow::Value::Kind::LuaFunction)) continue;
      auto raised = raising.find(callee.proto);
      if (raised == raising.end()) continue;
      p.confidence = Confidence::Likely;
      if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
      p.reasoning += "; the call at line " + std::to_string(ins.line) + " comes first, and an error raised at line " +
                     std::to_string(raised->second->line) + " in " + raised->second->function +
                     " ends the trace there on the passes that raise it, so whether a trace records this site the "
                     "data decides";
      break;
    }
  }
}

// A certain site after a loop nested in its loop body (or function body),
// which every pass runs first, where a call's stitched trace aborts on every
// pass (Finding::passesEndInterpreted): from its first abort on, each pass
// of that loop finishes in the interpreter, so the loop is left there and no
// side trace from its exit records the site, and the outer loop's trace
// links to the inner loop's at its start (audit 99: `table.sort(vs)` after
// `for j = 1, #strs do vs[j] = parse(strs[j]) end`, whose parse stitches and
// then returns through setmetatable; `-jv` never shows the sort on either
// build). Masked by that abort when it is certain; likely when the abort is.
void CollectingSink::markAfterInterpretedLoops() {
  std::vector<const Pending*> interpreted;
  for (const auto& m : pending_)
    if (m.passesEndInterpreted && !m.prediction.masked() && m.prediction.confidence >= Confidence::Likely)
      interpreted.push_back(&m);
  if (interpreted.empty()) return;
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence != Confidence::Certain || p.masked() || site.passesEndInterpreted ||
        site.proto >= chunk_->prototypes.size())
      continue;
    const flow::LoopMap& loops = calls_->loopMap(site.proto);
    const flow::Loop* around = loops.innermost(site.tracePc);
    const int first = around ? around->first : 1;
    for (const Pending* m : interpreted) {
      if (m->proto != site.proto || m->tracePc <= first || m->tracePc >= site.tracePc) continue;
      const flow::Loop* inner = loops.innermost(m->tracePc);
      if (!inner || inner == around || inner->last >= site.tracePc || inner->first <= first) continue;
      const bytecode::Prototype& code = chunk_->prototypes[site.proto];
      if (flow::jumpAround(code, inner->first, inner->last, site.tracePc)) continue;  // passes that skip it
      const Prediction& abort = m->prediction;
      if (abort.confidence == Confidence::Certain) {
        p.maskedBy = MaskingSite{abort.path, abort.line, abort.reasonId, {}};
      } else {
        p.confidence = Confidence::Likely;
        if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
        p.reasoning += "; but the loop at line " + std::to_string(code.at(inner->entry()).line) +
                       " comes first, and if the trace that resumes after a stitch in the call at line " +
                       std::to_string(abort.line) + " aborts there (" + abort.reasonId.str() +
                       ", likely), every pass of that loop finishes in the interpreter, which then leaves the loop, "
                       "and no side trace from its exit records this site, so likely";
      }
      break;
    }
  }
}

// Certain sites that every path in their loop body (or function body)
// reaches through an abort that is only likely (masking.h, with the likely
// aborts as maskers): on the passes where it aborts, no trace gets to the
// site, and whether that is every pass the data decides (audit 91:
// `ffi.new("char[32]", s)` before `ffi.new("char[?]", n, s)`; `-jv` shows
// the first blacklist the loop on both builds, never the second).
void CollectingSink::markAfterLikelyAborts() {
  Maskers likely(*this, [](const Pending& m) { return m.likelyAbort && !m.prediction.masked(); });
  if (likely.empty()) return;
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence != Confidence::Certain || p.masked() || site.unmaskable) continue;
    const Pending* m = likely.firstHiding(site);
    if (!m) continue;
    const Prediction& first = m->prediction;
    p.confidence = Confidence::Likely;
    if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
    p.reasoning += "; but every pass reaches it through line " + std::to_string(first.line) + ", where " +
                   first.reasonId.str() +
                   " likely aborts the trace first, and whether that is on every pass the data decides, so likely";
  }
}

// A certain site after an abort inside a lazy initialization of its
// function: the passes that initialize abort there first. Whether that is
// once per key or every pass (a fresh object each turn: audit 69, a UCLO
// `error` behind `if not self._fmt then self._fmt = function ... end end`,
// where every pass aborted at the closure) only the data shows: likely.
void CollectingSink::markAfterLazyInits() {
  std::map<std::size_t, const Pending*> lazy;  // by prototype: its first such abort
  for (const auto& m : pending_)
    if (m.onceOnlyLine > 0) {
      auto [it, inserted] = lazy.emplace(m.proto, &m);
      if (!inserted && m.tracePc < it->second->tracePc) it->second = &m;
    }
  if (lazy.empty()) return;
  for (auto& site : pending_) {
    Prediction& p = site.prediction;
    if (p.confidence != Confidence::Certain || p.masked() || site.onceOnlyLine > 0) continue;
    auto first = lazy.find(site.proto);
    if (first == lazy.end() || first->second->tracePc >= site.tracePc) continue;
    const Prediction& init = first->second->prediction;
    p.confidence = Confidence::Likely;
    if (p.severity == Severity::Blacklist) p.severity = Severity::Warn;
    p.reasoning += "; but the passes that initialize the value tested at line " +
                   std::to_string(first->second->onceOnlyLine) + " abort at line " + std::to_string(init.line) +
                   " first (" + init.reasonId.str() +
                   "), and whether that is once per key or every pass (a fresh object each turn) the data decides, "
                   "so likely";
  }
}

}  // namespace ljcheck::rules
