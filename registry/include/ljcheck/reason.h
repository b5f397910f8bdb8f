// Reason identities and the reason catalog: the one vocabulary shared by the
// analyzer's predictions and the runtime collector's observations.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ljcheck {

// blocker: cannot be recorded at all; risk: depends on run-time values;
// stop: trace formation working as designed (incl. stitches).
enum class ReasonClass { Blocker, Risk, Stop };

// Severity of one site, ordered: a larger value is worse.
enum class Severity { Info = 0, Warn = 1, Blacklist = 2 };

std::string_view toString(ReasonClass c);
std::string_view toString(Severity s);
std::optional<ReasonClass> parseReasonClass(std::string_view text);
std::optional<Severity> parseSeverity(std::string_view text);

// The subject of a split or NYIFFU at a plain C function (a lua_CFunction
// without a fast-function id): STITCH:C.
inline constexpr std::string_view kPlainCSubject = "C";

// A split is a stitch (the trace goes on after the call) or a return (the
// trace ends at the call).
enum class SplitKind { Stitch, Return };

// A reasonId is `CODE` or `CODE:SUBJECT` (NYIBC:FNEW, STITCH:string.gsub).
// The grammar lives here: everything else builds a ReasonId through these
// constructors, never by joining strings.
class ReasonId {
 public:
  ReasonId() = default;
  // A trace error (a TREDEF name). The subject is kept only for the codes
  // that carry one (traceErrorHasSubject): NYIBC, NYIFFU, NYIIR.
  static ReasonId traceError(std::string_view code, std::string_view subject = {});
  // NYIBC:<bytecode>: the recorder refuses this bytecode.
  static ReasonId refusedBytecode(std::string_view bytecode);
  // NYIFFU:<ffname>: a fast function's recorder refuses this call.
  static ReasonId refusedFastFunction(std::string_view ffname);
  // STITCH:<builtin> or RETURN:<builtin>; kPlainCSubject for a plain C function.
  static ReasonId split(SplitKind kind, std::string_view builtin);
  // A reasonId as written in a report or an allow comment.
  static ReasonId parse(std::string_view text);

  const std::string& code() const { return code_; }
  const std::string& subject() const { return subject_; }
  std::string str() const;
  bool empty() const { return code_.empty(); }
  bool operator==(const ReasonId& o) const { return code_ == o.code_ && subject_ == o.subject_; }
  bool operator!=(const ReasonId& o) const { return !(*this == o); }
  // The order of str(), without building it.
  bool operator<(const ReasonId& o) const;

 private:
  ReasonId(std::string code, std::string subject) : code_(std::move(code)), subject_(std::move(subject)) {}
  std::string code_;
  std::string subject_;
};

// Whether a trace error names a subject in its reasonId: NYIBC (the
// bytecode), NYIFFU (the fast function) and NYIIR (the IR instruction).
bool traceErrorHasSubject(std::string_view code);

// One entry of the catalog, keyed by CODE (a TREDEF name, STITCH or RETURN).
struct Reason {
  std::string code;
  std::string kind;  // "traceError" or "split"
  ReasonClass reasonClass = ReasonClass::Risk;
  Severity severity = Severity::Warn;
  bool benign = false;  // stop-class aborts hidden unless includeBenign
  // A condition of the whole JIT, not of the code being recorded (MCODEAL:
  // machine-code memory ran out): it lands on whatever line was recording,
  // so verify judges no site by it.
  bool processWide = false;
  std::string title;
  std::string explanation;
  std::string advice;
};

struct ReasonAlias {
  int sinceVersion = 0;  // first catalog version in which `from` is gone
  std::string from;      // old CODE or CODE:SUBJECT
  std::string to;        // its replacement
  std::string why;       // where the old id came from and why it maps to `to`
};

class ReasonCatalog {
 public:
  // The catalog compiled into the registry library.
  static const ReasonCatalog& builtin();
  static ReasonCatalog fromJson(std::string_view text);  // throws std::runtime_error

  const std::string& id() const { return id_; }
  int version() const { return version_; }
  const std::vector<Reason>& reasons() const { return reasons_; }
  const std::vector<ReasonAlias>& aliases() const { return aliases_; }
  const Reason* find(std::string_view code) const;
  // Rewrites a reasonId written under `writtenUnder` to this catalog's identity.
  std::string upgrade(std::string_view reasonId, int writtenUnder) const;

 private:
  std::string id_;
  int version_ = 0;
  std::vector<Reason> reasons_;
  std::vector<ReasonAlias> aliases_;
};

}  // namespace ljcheck
