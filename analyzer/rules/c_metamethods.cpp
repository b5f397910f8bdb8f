// RETURN:C at an operator on an object of a C module (lpeg's p * q, p / "",
// -p, #p): the operator calls the object's metamethod, which C code of the
// module set (luaL_newmetatable in luaopen_*). The recorder sets up a
// metamethod call with a continuation frame (lj_record.c rec_mm_prep,
// rec_mm_arith, rec_mm_len), and a plain C function can only be stitched
// when a Lua frame called it (lj_ffrecord.c recff_nyi: "Can only stitch from
// Lua call"): the trace stops and returns to the interpreter, whatever comes
// after the operator.
//
// An operand from a C module's function may be a number (socket.gettime())
// as well as a userdata: an operator is predicted only when the operands
// show a metamethod is needed (an operand no number has), or when the file
// treats the module's values as objects elsewhere (values.h,
// cModuleObjectEvidence).
#include <vector>

#include "flow/instruction_effects.h"
#include "rules/prediction_sink.h"
#include "rules/rule.h"
#include "rules/split_finding.h"

namespace ljcheck::rules {

// Part of the call-splits family (call_splits.cpp), which owns RETURN:C.
void checkCMetamethods(const FunctionView& fn, PredictionSink& sink) {
  // Operators that need a metamethod first: of two on one line, the sink
  // keeps the first reported, and that one is sure.
  std::vector<const flow::CModuleOperation*> operations;
  for (bool needed : {true, false})
    for (const auto& op : fn.values.cModuleOperations(fn.index))
      if (op.needsMetamethod == needed) operations.push_back(&op);
  for (const flow::CModuleOperation* operation : operations) {
    const flow::CModuleOperation& op = *operation;
    if (!runsHot(fn, op.pc)) continue;
    std::string module(op.object.cModuleName());
    std::string objects = op.needsMetamethod ? std::string() : fn.values.cModuleObjectEvidence(module);
    if (!op.needsMetamethod && objects.empty()) continue;
    const auto& ins = fn.proto.at(op.pc);
    std::string mm(flow::metamethodOf(ins.op)), symbol(flow::operatorOf(ins.op));
    std::string source(op.object.name);
    if (source.size() > 2 && source.compare(source.size() - 2, 2, "()") == 0) source.resize(source.size() - 2);
    Finding f = splitFinding(op.pc, SIZE_MAX, std::string(kPlainCSubject), module + " " + mm, true,
                             "it runs as a metamethod, which the recorder cannot stitch");
    f.construct = "metamethod";
    f.endsTrace = true;  // the trace stops here: what follows it in this body is not recorded (masking.h)
    f.message = "`" + symbol + "` on a value of C module " + module + " calls its C " + mm +
                " metamethod: the trace ends there";
    f.reasoning = "an operand comes from " + source + " (" + module + " is a C module: " +
                  fn.values.cModuleEvidence(module) + "); ";
    f.reasoning += op.needsMetamethod ? "the other operand is no number, so `" + symbol + "` calls its " + mm
                                      : module + " values are objects here (" + objects + "), so `" + symbol +
                                            "` calls its " + mm;
    f.reasoning += ", C code the recorder cannot stitch from a metamethod frame; " + whyHot(fn, op.pc);
    sink.report(fn, std::move(f));
  }
}

}  // namespace ljcheck::rules
