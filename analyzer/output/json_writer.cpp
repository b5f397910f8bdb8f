// JSON output: the recorder profile, the catalog version and every
// prediction with all its fields; file errors separately.
#include <nlohmann/json.hpp>

#include "ljcheck/lint_report.h"

namespace ljcheck {
namespace {

std::string_view errorKind(FileError::Kind k) {
  switch (k) {
    case FileError::Kind::Io: return "io";
    case FileError::Kind::Syntax: return "syntax";
    case FileError::Kind::Input: return "input";
  }
  return "io";
}

}  // namespace

void writeJson(std::ostream& out, const LintReport& report) {
  using nlohmann::json;
  const auto& catalog = ReasonCatalog::builtin();
  json j;
  j["tool"] = "ljcheck";
  j["kind"] = "lint";
  j["formatVersion"] = 1;
  j["reasonCatalogId"] = catalog.id();
  j["reasonCatalogVersion"] = catalog.version();
  if (report.profile)
    j["traceProfile"] = {{"id", report.profile->id}, {"name", report.profile->name},
                         {"supported", report.profile->supported}};
  j["files"] = report.files.size();
  json predictions = json::array(), errors = json::array();
  for (const auto& file : report.files) {
    for (const auto& e : file.errors)
      errors.push_back({{"path", e.path}, {"line", e.line}, {"kind", errorKind(e.kind)}, {"message", e.message}});
    for (const auto& p : file.predictions)
      predictions.push_back({{"reasonId", p.reasonId},
                             {"reasonClass", toString(p.reasonClass)},
                             {"severity", toString(p.severity)},
                             {"path", p.path},
                             {"line", p.line},
                             {"column", p.column},
                             {"endColumn", p.endColumn},
                             {"location", p.location()},
                             {"context", toString(p.context)},
                             {"construct", p.construct},
                             {"callee", p.callee},
                             {"function", p.function},
                             {"message", p.message},
                             {"advice", p.advice}});
  }
  j["predictions"] = std::move(predictions);
  j["errors"] = std::move(errors);
  // Paths are bytes on Linux: invalid UTF-8 is replaced rather than fatal.
  out << j.dump(1, ' ', false, json::error_handler_t::replace) << '\n';
}

}  // namespace ljcheck
