// Reason identities and the reason catalog: the one vocabulary shared by the
// analyzer's predictions and the runtime collector's observations.
#pragma once

#include <optional>
#include <string>
#include <string_view>
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

// A reasonId is `CODE` or `CODE:SUBJECT` (NYIBC:FNEW, STITCH:string.gsub).
struct ReasonId {
  std::string code;
  std::string subject;

  static ReasonId parse(std::string_view text);
  std::string str() const;
  bool operator==(const ReasonId& o) const { return code == o.code && subject == o.subject; }
  bool operator<(const ReasonId& o) const {
    return code != o.code ? code < o.code : subject < o.subject;
  }
};

// One entry of the catalog, keyed by CODE (a TREDEF name, STITCH or RETURN).
struct Reason {
  std::string code;
  std::string kind;  // "traceError" or "split"
  ReasonClass reasonClass = ReasonClass::Risk;
  Severity severity = Severity::Warn;
  bool benign = false;  // stop-class aborts hidden unless includeBenign
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
