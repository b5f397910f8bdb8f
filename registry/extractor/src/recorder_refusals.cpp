// What the recorder refuses outright: the bytecodes lj_record_ins (lj_record.c)
// sends to lj_trace_err_info(J, LJ_TRERR_NYIBC), and the fast functions
// recff_nyi (lj_ffrecord.c) never stitches across (its switch on the ffid).
#include <algorithm>
#include <set>

#include "scans.h"

namespace ljcheck::extractor {
namespace {

// The switch of `function` with the most case labels named `prefix`...
std::optional<CXCursor> dispatchSwitch(CXCursor function, const std::string& prefix) {
  std::optional<CXCursor> best;
  std::size_t bestCount = 0;
  for (CXCursor sw : switchStatements(function)) {
    std::size_t count = 0;
    for (const SwitchLabel& label : switchLabels(sw, [](CXCursor) { return false; }))
      count += label.name.rfind(prefix, 0) == 0;
    if (count > bestCount) {
      best = sw;
      bestCount = count;
    }
  }
  return best;
}

}  // namespace

std::vector<std::string> scanNyiBytecodes(const TranslationUnit& record, const std::vector<BytecodeDef>& bytecodes) {
  std::optional<CXCursor> function = record.functionDefinition("lj_record_ins");
  if (!function) throw ExtractError(record.file(), "no definition of lj_record_ins");
  std::optional<CXCursor> sw = dispatchSwitch(*function, "BC_");
  if (!sw) throw ExtractError(record.file(), "lj_record_ins has no switch over the bytecodes (case BC_...)");
  std::set<std::string> labelled, refused;
  bool defaultRefuses = false;
  for (const SwitchLabel& label : switchLabels(*sw, [](CXCursor c) { return traceErrorRaised(c) == "NYIBC"; })) {
    if (label.name == "default") {
      defaultRefuses = label.matches;
      continue;
    }
    if (label.name.rfind("BC_", 0) != 0) continue;
    const std::string name = label.name.substr(3);
    const bool known = std::any_of(bytecodes.begin(), bytecodes.end(), [&](const auto& b) { return b.name == name; });
    if (!known)
      throw ExtractError(record.file(), "lj_record_ins handles " + label.name + ", which lj_bc.h does not define");
    labelled.insert(name);
    if (label.matches) refused.insert(name);
  }
  std::vector<std::string> result;  // in opcode order
  for (const BytecodeDef& b : bytecodes)
    if (refused.count(b.name) || (defaultRefuses && !labelled.count(b.name))) result.push_back(b.name);
  return result;
}

std::vector<std::string> scanNeverStitch(const TranslationUnit& ffrecord) {
  std::optional<CXCursor> function = ffrecord.functionDefinition("recff_nyi");
  if (!function) throw ExtractError(ffrecord.file(), "no definition of recff_nyi");
  std::optional<CXCursor> sw = dispatchSwitch(*function, "FF_");
  if (!sw) throw ExtractError(ffrecord.file(), "recff_nyi has no switch over fast-function ids (case FF_...)");
  auto stitches = [](CXCursor c) {
    return clang_getCursorKind(c) == CXCursor_CallExpr && spelling(c) == "recff_stitch";
  };
  std::vector<std::string> never;
  for (const SwitchLabel& label : switchLabels(*sw, stitches))
    if (label.name.rfind("FF_", 0) == 0 && !label.matches) never.push_back(label.name.substr(3));
  return never;
}

}  // namespace ljcheck::extractor
