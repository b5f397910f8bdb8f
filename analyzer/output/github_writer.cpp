// GitHub Actions output: workflow commands that annotate the changed files
// (`::error file=F,line=L,col=C,endColumn=E,title=T::message`), and a
// Markdown summary for $GITHUB_STEP_SUMMARY. GitHub shows only ten
// annotations of each kind per step, so the most severe come first and a
// last plain line counts them all.
#include "ljcheck/lint_report.h"

#include <algorithm>
#include <array>

#include "ljcheck/reason_docs.h"
#include "ljcheck/safe_text.h"
#include "output/source_columns.h"

namespace ljcheck {
namespace {

// Annotations GitHub shows per kind and step; the rest are dropped.
constexpr std::size_t kShownPerKind = 10;
// Rows of the step summary's table: GitHub takes at most 1 MiB of summary per step.
constexpr std::size_t kSummaryRows = 500;

std::string_view commandOf(Severity s) {
  switch (s) {
    case Severity::Blacklist: return "error";
    case Severity::Warn: return "warning";
    case Severity::Info: return "notice";
  }
  return "warning";
}

// Workflow command data: '%', CR and LF are the escapes the runner decodes;
// other control characters become \xHH first.
std::string escapeData(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else {
      std::size_t next = text.find_first_of("%\r\n", i);
      std::string_view run = text.substr(i, next == std::string_view::npos ? std::string_view::npos : next - i);
      out += escapeControls(run);
      i += run.size() - 1;
    }
  }
  return out;
}

// A property value (file=, title=) also escapes ':' and ','.
std::string escapeProperty(std::string_view text) {
  std::string out;
  for (char c : escapeData(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

struct Annotation {
  Severity severity;
  std::string line;  // the whole command, without its newline
};

Annotation annotate(const Prediction& p, Utf16Columns& columns) {
  std::string props = "file=" + escapeProperty(p.path);
  if (p.range.found()) {
    props += ",line=" + std::to_string(p.range.start.line);
    if (p.range.end.line > 0 && p.range.end.line != p.range.start.line) {
      props += ",endLine=" + std::to_string(p.range.end.line);
    } else if (p.range.end.column > 0) {  // columns only on one line, as GitHub wants them
      props += ",col=" + std::to_string(columns.convert(p.path, p.range.start.line, p.range.start.column));
      props += ",endColumn=" + std::to_string(columns.convert(p.path, p.range.end.line, p.range.end.column));
    }
  } else {
    props += ",line=" + std::to_string(p.line);
  }
  props += ",title=" + escapeProperty("ljcheck " + p.reasonId.str());
  std::string message = p.message;
  if (p.masked()) message += " (masked by " + p.maskedBy->shownLine() + ' ' + p.maskedBy->reasonId.str() + ")";
  message += " [" + p.reasonId.str() + "]";
  if (std::string page = reasonDocsPage(p.reasonId.str()); !page.empty()) message += "\nSee " + page;
  Severity shown = shownSeverity(p);
  return {shown, "::" + std::string(commandOf(shown)) + ' ' + props + "::" + escapeData(message)};
}

Annotation annotate(const FileError& e) {
  std::string props = "file=" + escapeProperty(e.path);
  if (e.line > 0) props += ",line=" + std::to_string(e.line);
  props += ",title=" + escapeProperty("ljcheck: cannot analyze");
  return {Severity::Blacklist, "::error " + props + "::" + escapeData(e.message)};
}

Annotation annotate(const DirectiveProblem& d, Utf16Columns& columns) {
  std::string props = "file=" + escapeProperty(d.path) + ",line=" + std::to_string(d.line) +
                      ",col=" + std::to_string(columns.convert(d.path, d.line, d.column)) +
                      ",title=" + escapeProperty("ljcheck " + std::string(directiveId(d.kind)));
  std::string message = d.message + " [" + std::string(directiveId(d.kind)) + "]";
  return {d.severity, "::" + std::string(commandOf(d.severity)) + ' ' + props + "::" + escapeData(message)};
}

std::string plural(std::size_t n, std::string_view word) {
  return std::to_string(n) + ' ' + std::string(word) + (n == 1 ? "" : "s");
}

// Counts by shown severity, indexed by Severity.
std::array<std::size_t, 3> countFindings(const LintReport& report) {
  std::array<std::size_t, 3> counts{};
  for (const auto& f : report.files)
    for (const auto& p : f.predictions) ++counts[static_cast<std::size_t>(shownSeverity(p))];
  return counts;
}

// Markdown table cell: control characters escaped, Markdown and HTML
// punctuation backslash-escaped, so a file name renders as text.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : escapeControls(text)) {
    if (std::string_view("\\`*_[]<>|&#!~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void writeGithubAnnotations(std::ostream& out, const LintReport& report, const SourceLookup& source) {
  Utf16Columns columns(source);
  std::vector<Annotation> annotations;
  for (const auto& file : report.files) {
    for (const auto& e : file.errors) annotations.push_back(annotate(e));
    for (const auto& p : file.predictions) annotations.push_back(annotate(p, columns));
    for (const auto& d : file.directives) annotations.push_back(annotate(d, columns));
  }
  std::stable_sort(annotations.begin(), annotations.end(),
                   [](const Annotation& a, const Annotation& b) { return a.severity > b.severity; });
  std::array<std::size_t, 3> kinds{};
  for (const auto& a : annotations) {
    out << a.line << '\n';
    ++kinds[static_cast<std::size_t>(a.severity)];
  }
  std::size_t hidden = 0;
  for (std::size_t n : kinds) hidden += n > kShownPerKind ? n - kShownPerKind : 0;
  auto counts = countFindings(report);
  out << "ljcheck: " << plural(counts[2], "error") << ", " << plural(counts[1], "warning") << ", "
      << plural(counts[0], "note") << " in " << plural(report.files.size(), "file");
  if (std::size_t errors = report.errorCount())
    out << "; " << plural(errors, "file") << " could not be analyzed (annotated as errors, not counted above)";
  if (std::size_t directives = report.directiveCount()) out << "; " << plural(directives, "suppression comment problem");
  if (hidden > 0)
    out << "; GitHub shows " << kShownPerKind << " annotations of each kind per step, " << hidden
        << " more are in this log";
  out << '\n';
}

void writeGithubSummary(std::ostream& out, const LintReport& report) {
  auto counts = countFindings(report);
  out << "### ljcheck lint\n\n"
      << plural(counts[2], "error") << ", " << plural(counts[1], "warning") << ", " << plural(counts[0], "note")
      << " in " << plural(report.files.size(), "file") << ".\n\n";
  if (report.errorCount() > 0) {
    out << "| file | line | could not be analyzed |\n|---|---|---|\n";
    for (const auto& f : report.files)
      for (const auto& e : f.errors) out << "| " << cell(e.path) << " | " << e.line << " | " << cell(e.message) << " |\n";
    out << '\n';
  }
  if (report.predictionCount() == 0) return;
  std::vector<const Prediction*> rows;
  for (const auto& f : report.files)
    for (const auto& p : f.predictions) rows.push_back(&p);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Prediction* a, const Prediction* b) { return shownSeverity(*a) > shownSeverity(*b); });
  out << "| severity | location | reasonId | message |\n|---|---|---|---|\n";
  if (rows.size() > kSummaryRows) rows.resize(kSummaryRows);
  for (const Prediction* p : rows)
    out << "| " << diagnosticLevel(shownSeverity(*p)) << " | " << cell(p->location()) << " | " << cell(p->reasonId.str())
        << " | " << cell(p->message) << " |\n";
  if (report.predictionCount() > rows.size())
    out << "\n" << report.predictionCount() - rows.size() << " more in the step's log.\n";
  out << '\n';
}

}  // namespace ljcheck
