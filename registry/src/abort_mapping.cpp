// Raw trace aborts and splits to reasonIds (see abort_mapping.h).
#include "ljcheck/abort_mapping.h"

namespace ljcheck {
namespace {

std::string nameAt(const std::vector<std::string>& names, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < names.size() ? names[static_cast<std::size_t>(index)]
                                                                      : std::string();
}

// The name a builtin goes by in a reasonId: vmdef.ffnames, or C.
std::string builtinName(int ffid, const VmNameTables& names) {
  if (ffid == kPlainCFunction) return std::string(kPlainCSubject);
  std::string name = nameAt(names.fastFunctions, ffid);
  return name.empty() ? "ffid" + std::to_string(ffid) : name;
}

// The subject a trace error's argument names, or "" when it names none.
std::string subjectName(std::string_view code, int subject, const VmNameTables& names) {
  if (code == "NYIBC") return nameAt(names.bytecodes, subject);
  if (code == "NYIIR") return nameAt(names.irOps, subject);
  if (code == "NYIFFU" && subject != kNoSubject) return builtinName(subject, names);
  return {};
}

// Fills the message's one printf argument (%d or %s) as the VM would show it.
std::string fillMessage(const std::string& format, const std::string& number, const std::string& name) {
  std::string text = format;
  if (auto at = text.find("%d"); at != std::string::npos) text.replace(at, 2, number);
  else if (auto at2 = text.find("%s"); at2 != std::string::npos) text.replace(at2, 2, name);
  return text;
}

}  // namespace

std::string traceErrorNameByMessage(std::string_view message) {
  for (const auto& p : builtinProfiles())
    for (const auto& te : p.traceErrors)
      if (te.message == message) return te.name;
  return {};
}

std::string traceErrorName(const RecorderProfile& profile, int code, std::string_view message) {
  if (code < 0) return "RECERR";  // a Lua error object instead of a trace error
  if (profile.supported && static_cast<size_t>(code) < profile.traceErrors.size())
    return profile.traceErrors[static_cast<size_t>(code)].name;
  std::string byMessage = traceErrorNameByMessage(message);
  if (!byMessage.empty()) return byMessage;
  return "TRACEERR" + std::to_string(code);
}

ResolvedAbort resolveAbort(const RecorderProfile& profile, const RawAbort& abort, const VmNameTables& names) {
  if (abort.code < 0) return {ReasonId::traceError("RECERR"), abort.errorText};
  std::string code = traceErrorName(profile, abort.code, abort.message);
  std::string subject = subjectName(code, abort.subject, names);
  ReasonId id = ReasonId::traceError(code, subject);
  std::string number = abort.subject >= 0 ? std::to_string(abort.subject) : "?";
  std::string text = fillMessage(abort.message, number, subject.empty() ? number : subject);
  if (text.empty()) text = "trace error " + std::to_string(abort.code);
  return {std::move(id), std::move(text)};
}

ResolvedAbort resolveSplit(SplitKind kind, int ffid, const VmNameTables& names) {
  std::string name = builtinName(ffid, names);
  std::string text = (kind == SplitKind::Stitch ? "stitch at " : "return at ") + name;
  return {ReasonId::split(kind, name), std::move(text)};
}

}  // namespace ljcheck
