// What every ljcheck report file says about itself, written and read in one
// place: the tool, the report kind and format version, the recorder profile
// and reason catalog it was written under, and the root its paths are
// relative to. `ljcheck lint --format json`, the runtime JSON and `ljcheck
// verify` all go through this.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ljcheck {

// A report file whose envelope cannot be used; the message names the file.
class ReportFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The recorder profile a report was written for.
struct ProfileRef {
  std::string id;
  std::string name;
  bool supported = false;
};

struct ReportEnvelope {
  static constexpr int kFormatVersion = 1;

  std::string kind;  // "lint", "runtime"
  int formatVersion = kFormatVersion;
  ProfileRef traceProfile;
  std::string reasonCatalogId;
  int reasonCatalogVersion = 0;
  std::string root;  // absolute directory that relative paths are relative to; "" when not recorded

  // A new report's envelope, under the builtin reason catalog.
  static ReportEnvelope current(std::string kind, ProfileRef profile, std::string root);
  // The envelope's members, in their order, to start a report's JSON object.
  nlohmann::ordered_json toJson() const;
  // Reads and checks a report's envelope: an ljcheck report of `expectedKind`
  // with a profile and catalog. Throws ReportFormatError naming `file`.
  static ReportEnvelope read(const nlohmann::json& doc, const std::string& file, std::string_view expectedKind);
};

}  // namespace ljcheck
