// JUnit XML output, for CI systems that show test reports (GitLab, Jenkins,
// Azure Pipelines): one testcase per file, one failure per finding at or
// above the --fail-on threshold, one error per file that could not be
// analyzed. XML 1.0 cannot hold most control characters or bytes that are
// not UTF-8 at all, so they are written as \xHH.
#include "ljcheck/lint_report.h"

#include "ljcheck/reason_docs.h"
#include "ljcheck/safe_text.h"

namespace ljcheck {
namespace {

// Text for an XML attribute or element: markup escaped; in an attribute,
// line breaks and tabs as character references (a parser would turn them
// into spaces otherwise).
std::string xml(std::string_view text, bool attribute = true) {
  std::string out;
  std::size_t start = 0;  // the run of text not yet written
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool space = c == '\n' || c == '\r' || c == '\t';
    std::string_view ref = c == '&'    ? "&amp;"
                           : c == '<'  ? "&lt;"
                           : c == '>'  ? "&gt;"
                           : c == '"'  ? "&quot;"
                           : c == '\'' ? "&apos;"
                           : c == '\n' ? "&#10;"
                           : c == '\r' ? "&#13;"
                           : c == '\t' ? "&#9;"
                                       : "";
    if (ref.empty()) continue;
    out += escapeControls(text.substr(start, i - start));
    if (space && !attribute) out += c;
    else out += ref;
    start = i + 1;
  }
  return out + escapeControls(text.substr(start));
}

std::string where(const Prediction& p) {
  if (p.range.found())
    return p.path + ':' + std::to_string(p.range.start.line) + ':' + std::to_string(p.range.start.column);
  return p.location();
}

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0;
};

Counts count(const LintReport& report, std::optional<Severity> threshold) {
  Counts c;
  c.tests = report.files.size();
  c.errors = report.errorCount();
  for (const auto& f : report.files)
    for (const auto& p : f.predictions)
      if (threshold && !p.masked() && p.severity >= *threshold) ++c.failures;
  for (const auto& f : report.files)
    for (const auto& d : f.directives)
      if (threshold && d.severity >= *threshold) ++c.failures;
  return c;
}

}  // namespace

void writeJunit(std::ostream& out, const LintReport& report, std::optional<Severity> threshold) {
  Counts c = count(report, threshold);
  auto totals = [&] {
    return "tests=\"" + std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) + "\" errors=\"" +
           std::to_string(c.errors) + "\"";
  };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"ljcheck lint\" " << totals() << ">\n"
      << " <testsuite name=\"ljcheck lint\" " << totals() << " skipped=\"0\">\n";
  for (const auto& file : report.files) {
    std::string path = xml(file.path);
    out << "  <testcase classname=\"ljcheck.lint\" name=\"" << path << "\" file=\"" << path << "\"";
    std::string body;
    for (const auto& e : file.errors) {
      std::string at = e.path + (e.line > 0 ? ':' + std::to_string(e.line) : "");
      body += "   <error type=\"cannot analyze\" message=\"" + xml(e.message) + "\">" + xml(at + ": " + e.message, false) +
              "</error>\n";
    }
    for (const auto& p : file.predictions) {
      if (!threshold || p.masked() || p.severity < *threshold) continue;
      std::string detail = where(p) + ": " + std::string(diagnosticLevel(p.severity)) + ": " + p.message + " [" +
                           p.reasonId.str() + "]\n" + std::string(toString(p.confidence)) + ": " + p.reasoning +
                           "\n" + p.advice;
      if (std::string page = reasonDocsPage(p.reasonId.str()); !page.empty()) detail += "\nSee " + page;
      body += "   <failure type=\"" + xml(p.reasonId.str()) + "\" message=\"" + xml(where(p) + ": " + p.message) +
              "\">" + xml(detail, false) + "</failure>\n";
    }
    for (const auto& d : file.directives) {
      if (!threshold || d.severity < *threshold) continue;
      std::string at = d.path + ':' + std::to_string(d.line) + ':' + std::to_string(d.column);
      body += "   <failure type=\"" + std::string(directiveId(d.kind)) + "\" message=\"" + xml(at + ": " + d.message) +
              "\">" + xml(at + ": " + std::string(diagnosticLevel(d.severity)) + ": " + d.message, false) +
              "</failure>\n";
    }
    if (body.empty()) out << "/>\n";
    else out << ">\n" << body << "  </testcase>\n";
  }
  out << " </testsuite>\n</testsuites>\n";
}

}  // namespace ljcheck
