// The verification report: joins the analyzer's predictions with the
// runtime collector's observations on (location, reasonId).
#pragma once

#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ljcheck {

// A report file that cannot be used: names the file and what was wrong.
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ReportSite {
  std::string reasonId;
  std::string location;  // path:line
  std::string reasonClass;
  std::string severity;
  long count = 1;
};

struct SiteReport {
  std::string file;  // where it was read from
  std::string kind;  // "lint" or "runtime"
  std::string profileId, profileName;
  std::string catalogId;
  int catalogVersion = 0;
  std::vector<ReportSite> sites;
};

// Reads lint JSON or runtime JSON; reasonIds written under an older catalog
// version are upgraded through the catalog's aliases. Throws ReportError.
SiteReport readReport(const std::string& path, const std::string& expectedKind);

struct Tally {
  long confirmed = 0, missed = 0, latent = 0;
  double precision() const;  // confirmed / (confirmed + latent); 1 when nothing was predicted
  double recall() const;     // confirmed / (confirmed + missed); 1 when nothing was observed
};

struct JoinedSite {
  enum class Status { Confirmed, Missed, Latent };
  Status status = Status::Confirmed;
  std::string reasonId, reasonClass, location, severity;
  long observedCount = 0;
};

struct Verification {
  std::string profileId, profileName;
  std::vector<JoinedSite> sites;  // confirmed, then missed, then latent
  std::map<std::string, Tally> byReason, byClass;
  Tally total;
};

struct VerifyOptions {
  bool allowProfileMismatch = false;
};

// Throws ReportError when the reports come from different recorder profiles
// (unless allowed) or different catalogs.
Verification verify(const SiteReport& lint, const std::vector<SiteReport>& runs, const VerifyOptions& options);

std::string_view toString(JoinedSite::Status s);
void writeVerificationText(std::ostream& out, const Verification& v);
void writeVerificationJson(std::ostream& out, const Verification& v);

}  // namespace ljcheck
