// SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers. One
// rule per reasonId the run reports, its texts from the reason catalog; one
// result per prediction, with a region in UTF-16 columns on a URI relative to
// the project root (%SRCROOT%), and a fingerprint that does not move with
// the line: reasonId, path, enclosing function, the construct's line text
// and occurrence (SiteFingerprint). Files that
// could not be analyzed are tool execution notifications. No
// security-severity: these are performance findings, not security alerts.
#include "ljcheck/lint_report.h"

#include <map>
#include <nlohmann/json.hpp>

#include "ljcheck/reason_docs.h"
#include "ljcheck/safe_text.h"
#include "output/source_columns.h"

namespace ljcheck {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kRootBase = "%SRCROOT%";
// The partialFingerprints key; the version changes when the recipe does.
constexpr std::string_view kFingerprintKey = "ljcheckSite/v2";

// A reason page's absolute URI under the docs base (report.docsUrl names
// the folder holding reasons/); "" when no base is known. SARIF requires
// absolute URIs in helpUri.
std::string docsUri(const std::string& docsUrl, const std::string& page) {
  const std::string_view prefix = "docs/";
  if (docsUrl.empty()) return "";
  std::string_view relative = page;
  if (relative.substr(0, prefix.size()) == prefix) relative.remove_prefix(prefix.size());
  return docsUrl + std::string(relative);
}

Json text(std::string_view s) { return Json{{"text", s}}; }

// A rule descriptor for one reasonId, from the catalog entry of its code.
Json ruleFor(const ReasonId& id, const std::string& docsUrl) {
  Json rule{{"id", id.str()}};
  const Reason* reason = ReasonCatalog::builtin().find(id.code());
  if (!reason) {  // a code from another build's catalog: no texts to give
    rule["shortDescription"] = text(id.str());
    return rule;
  }
  std::string page = reasonDocsPage(id.str());
  rule["shortDescription"] = text(id.subject().empty() ? reason->title : reason->title + ": " + id.subject());
  rule["fullDescription"] = text(reason->explanation);
  std::string uri = page.empty() ? "" : docsUri(docsUrl, page);
  if (!uri.empty()) rule["helpUri"] = uri;
  std::string markdown = reason->explanation + "\n\n**What to do:** " + reason->advice;
  if (!uri.empty()) markdown += "\n\nSee [" + page + "](" + uri + ").";
  else if (!page.empty()) markdown += "\n\nSee `" + page + "` in ljcheck's documentation.";
  rule["help"] = Json{{"text", reason->advice}, {"markdown", markdown}};
  rule["defaultConfiguration"] = Json{{"level", diagnosticLevel(reason->severity)}};
  rule["properties"] = Json{{"tags", Json::array({"luajit", "performance", toString(reason->reasonClass)})}};
  return rule;
}

// A rule descriptor for a problem of a suppression comment itself.
Json directiveRule(DirectiveProblem::Kind kind) {
  std::string_view what, todo;
  switch (kind) {
    case DirectiveProblem::Kind::UnpairedPush:
      what = "A `-- ljcheck: push` comment with no matching `pop`: its allows run to the end of the file.";
      todo = "Add `-- ljcheck: pop` where the block should end.";
      break;
    case DirectiveProblem::Kind::UnpairedPop:
      what = "A `-- ljcheck: pop` comment with no open `push`: it is ignored.";
      todo = "Remove the `pop`, or add the `push` it closes.";
      break;
    case DirectiveProblem::Kind::UnusedAllow:
      what = "An allow comment that suppresses no prediction.";
      todo = "Remove the comment, or the ID it no longer needs.";
      break;
    case DirectiveProblem::Kind::UnknownReason:
      what = "An allow comment naming an ID that is no reason, code or subject: it suppresses nothing.";
      todo = "Correct the ID (the message names the nearest known one).";
      break;
  }
  return Json{{"id", directiveId(kind)},
              {"shortDescription", text(std::string("Suppression comment: ") + std::string(directiveId(kind)))},
              {"fullDescription", text(what)},
              {"help", Json{{"text", todo}, {"markdown", std::string(todo)}}},
              {"defaultConfiguration", Json{{"level", "warning"}}},
              {"properties", Json{{"tags", Json::array({"ljcheck", "suppression"})}}}};
}

// A reported path as an artifact location: relative paths under the root's
// base id, absolute ones (outside the root) as file URIs.
Json artifactLocation(const std::string& path) {
  if (!path.empty() && path[0] == '/') return Json{{"uri", "file://" + percentEncodePath(path)}};
  // A colon in the first segment of a relative reference would read as a
  // scheme (`co:lon.lua`): RFC 3986 4.2 asks for it percent-encoded there.
  std::string uri = percentEncodePath(path);
  std::string::size_type slash = uri.find('/'), colon = uri.find(':');
  if (colon != std::string::npos && colon < slash) {
    std::string first = uri.substr(0, slash), encoded;
    for (char c : first) encoded += c == ':' ? std::string("%3A") : std::string(1, c);
    uri = encoded + (slash == std::string::npos ? std::string() : uri.substr(slash));
  }
  return Json{{"uri", uri}, {"uriBaseId", kRootBase}};
}

Json region(const Prediction& p, Utf16Columns& columns) {
  if (!p.range.found()) return Json{{"startLine", p.line}};
  Json r{{"startLine", p.range.start.line},
         {"startColumn", columns.convert(p.path, p.range.start.line, p.range.start.column)}};
  if (p.range.end.line > 0 && p.range.end.column > 0) {
    r["endLine"] = p.range.end.line;
    r["endColumn"] = columns.convert(p.path, p.range.end.line, p.range.end.column);
  }
  return r;
}

std::string messageOf(const Prediction& p) {
  std::string m = p.message;
  if (p.masked()) m += " (masked by " + p.maskedBy->shownLine() + ' ' + p.maskedBy->reasonId.str() + ")";
  return m;
}

}  // namespace

void writeSarif(std::ostream& out, const LintReport& report, const SourceLookup& source) {
  std::map<std::string, std::size_t> ruleIndex;  // by reasonId, in id order
  for (const auto& file : report.files)
    for (const auto& p : file.predictions) ruleIndex.emplace(p.reasonId.str(), 0);
  std::map<std::string, std::size_t> directiveIndex;  // by directive id
  std::map<std::string, DirectiveProblem::Kind> directiveKinds;
  for (const auto& file : report.files)
    for (const auto& d : file.directives) directiveKinds.emplace(directiveId(d.kind), d.kind);
  Json rules = Json::array();
  for (auto& [id, index] : ruleIndex) {
    index = rules.size();
    rules.push_back(ruleFor(ReasonId::parse(id), report.docsUrl));
  }
  for (const auto& [id, kind] : directiveKinds) {
    directiveIndex[id] = rules.size();
    rules.push_back(directiveRule(kind));
  }

  Utf16Columns columns(source);
  Json results = Json::array();
  Json notifications = Json::array();
  for (const auto& file : report.files) {
    const std::vector<SiteFingerprint> fingerprints = siteFingerprints(file);
    for (std::size_t i = 0; i < file.predictions.size(); ++i) {
      const Prediction& p = file.predictions[i];
      const std::string& id = fingerprints[i].reasonId;
      Json result{{"ruleId", id},
                  {"ruleIndex", ruleIndex.at(id)},
                  {"level", diagnosticLevel(shownSeverity(p))},
                  {"message", text(messageOf(p))}};
      result["locations"] = Json::array(
          {Json{{"physicalLocation", Json{{"artifactLocation", artifactLocation(p.path)}, {"region", region(p, columns)}}}}});
      result["partialFingerprints"] =
          Json{{kFingerprintKey, fingerprints[i].hash}};
      result["properties"] = Json{{"confidence", toString(p.confidence)},
                                  {"reasonClass", toString(p.reasonClass)},
                                  {"context", toString(p.context)},
                                  {"masked", p.masked()}};
      results.push_back(std::move(result));
    }
    for (const auto& d : file.directives) {
      const std::string id(directiveId(d.kind));
      Json region{{"startLine", d.line}};
      if (d.column > 0) region["startColumn"] = columns.convert(d.path, d.line, d.column);
      Json result{{"ruleId", id},
                  {"ruleIndex", directiveIndex.at(id)},
                  {"level", diagnosticLevel(d.severity)},
                  {"message", text(d.message)}};
      result["locations"] = Json::array(
          {Json{{"physicalLocation", Json{{"artifactLocation", artifactLocation(d.path)}, {"region", region}}}}});
      results.push_back(std::move(result));
    }
    for (const auto& e : file.errors) {
      Json location{{"artifactLocation", artifactLocation(e.path)}};
      if (e.line > 0) location["region"] = Json{{"startLine", e.line}};
      notifications.push_back(Json{{"level", "error"},
                                   {"message", text(e.message)},
                                   {"locations", Json::array({Json{{"physicalLocation", location}}})}});
    }
  }

  Json driver{{"name", "ljcheck"}};
  if (!report.toolVersion.empty()) driver["semanticVersion"] = report.toolVersion;
  // Where the tool is described: its docs, when they are linked (SARIF2005).
  if (!report.docsUrl.empty()) driver["informationUri"] = report.docsUrl;
  driver["rules"] = std::move(rules);
  Json run{{"tool", Json{{"driver", std::move(driver)}}}};
  run["invocations"] = Json::array(
      {Json{{"executionSuccessful", notifications.empty()}, {"toolExecutionNotifications", std::move(notifications)}}});
  if (!report.root.empty())
    run["originalUriBaseIds"] = Json{{kRootBase, Json{{"uri", "file://" + percentEncodePath(report.root) + "/"}}}};
  run["columnKind"] = "utf16CodeUnits";
  if (report.profile)
    run["properties"] = Json{{"traceProfile", Json{{"id", report.profile->id}, {"name", report.profile->name}}},
                             {"reasonCatalogId", ReasonCatalog::builtin().id()},
                             {"reasonCatalogVersion", ReasonCatalog::builtin().version()}};
  run["results"] = std::move(results);
  Json log{{"$schema", kSchema}, {"version", "2.1.0"}, {"runs", Json::array({std::move(run)})}};
  out << log.dump(1, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace ljcheck
