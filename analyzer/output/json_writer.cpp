// JSON output: the recorder profile, the catalog version and every
// prediction with all its fields; file errors separately. Written row by
// row, never as a document in memory: a large project has many thousands of
// predictions. A path that is not UTF-8 cannot be a JSON string as it is:
// `path` shows it with U+FFFD and `pathBytes` keeps its bytes, percent-encoded.
#include "ljcheck/lint_report.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <vector>

#include "ljcheck/reason_docs.h"
#include "ljcheck/report_envelope.h"
#include "output/json_text.h"
#include "worker_threads.h"
#include "ljcheck/safe_text.h"

namespace ljcheck {
namespace {

// Files per thread in a window of rendered rows (writeJson).
constexpr std::size_t kFilesPerPart = 256;

std::string_view errorKind(FileError::Kind k) {
  switch (k) {
    case FileError::Kind::Io: return "io";
    case FileError::Kind::Syntax: return "syntax";
    case FileError::Kind::Input: return "input";
  }
  return "io";
}

// Appends `"key": value` pairs of one object on one line to a buffer.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_ += '{'; }
  ~ObjectWriter() { out_ += '}'; }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  ObjectWriter& field(std::string_view key, std::string_view value) {
    key_(key, true);
    appendJsonStringAfterQuote(out_, value);
    return *this;
  }
  ObjectWriter& field(std::string_view key, long long value) {
    key_(key);
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out_.append(digits, static_cast<std::size_t>(end - digits));
    return *this;
  }
  ObjectWriter& field(std::string_view key, bool value) {
    key_(key);
    out_ += value ? "true" : "false";
    return *this;
  }
  // `path`, and `pathBytes` when the path is not UTF-8.
  ObjectWriter& path(std::string_view value) {
    field("path", value);
    if (!isUtf8(value)) field("pathBytes", percentEncodePath(value));
    return *this;
  }
  // A nested object written by `fill`, only when `present`.
  template <class Fill>
  ObjectWriter& object(std::string_view key, bool present, Fill fill) {
    if (!present) return *this;
    key_(key);
    ObjectWriter nested(out_);
    fill(nested);
    return *this;
  }

 private:
  // Keys are ours, plain ASCII: no escaping needed. `, "key": ` goes in
  // one append: a report has tens of thousands of rows of 25 fields.
  // With `quote`, the opening quote of a string value too.
  void key_(std::string_view key, bool quote = false) {
    char text[64];
    std::size_t n = 0;
    if (!first_) {
      text[n++] = ',';
      text[n++] = ' ';
    }
    first_ = false;
    text[n++] = '"';
    const std::size_t room = sizeof text - n - 4;
    const std::size_t fits = std::min(key.size(), room);
    std::memcpy(text + n, key.data(), fits);
    n += fits;
    if (fits < key.size()) {  // no key of ours is this long; still written whole
      out_.append(text, n);
      out_.append(key.substr(fits));
      n = 0;
    }
    text[n++] = '"';
    text[n++] = ':';
    text[n++] = ' ';
    if (quote) text[n++] = '"';
    out_.append(text, n);
  }
  std::string& out_;
  bool first_ = true;
};

void writePosition(ObjectWriter& object, SourcePosition at) {
  object.field("line", static_cast<long long>(at.line)).field("column", static_cast<long long>(at.column));
}

void writePrediction(std::string& out, const Prediction& p) {
  ObjectWriter(out)
      .field("reasonId", p.reasonId.str())
      .field("reasonClass", toString(p.reasonClass))
      .field("severity", toString(shownSeverity(p)))  // a masked site is a note, as every format shows it
      .path(p.path)
      .field("line", static_cast<long long>(p.line))
      .field("column", static_cast<long long>(p.column))
      .field("endColumn", static_cast<long long>(p.endColumn))
      .object("range", true,
              [&](ObjectWriter& range) {
                range.object("start", true, [&](ObjectWriter& start) { writePosition(start, p.range.start); })
                    .object("end", true, [&](ObjectWriter& end) { writePosition(end, p.range.end); });
              })
      .field("location", p.location())
      .field("context", toString(p.context))
      .field("construct", p.construct)
      .field("instruction", p.instruction)
      .field("calleeInstruction", p.calleeInstruction)
      .field("callee", p.callee)
      .field("function", p.function)
      .field("message", p.message)
      .field("advice", p.advice)
      .field("confidence", toString(p.confidence))
      .field("reasoning", p.reasoning)
      .field("docs", reasonDocsPage(p.reasonId.code()))
      .object("maskedBy", p.masked(), [&](ObjectWriter& masking) {
        masking.field("location", p.maskedBy->location())
            .field("reasonId", p.maskedBy->reasonId.str())
            .field("severityWhenUnmasked", toString(p.severity));
      })
      .object("blacklistsEntry", p.blacklistsEntry.has_value(), [&](ObjectWriter& entry) {
        entry.field("location", p.path + ":" + std::to_string(p.blacklistsEntry->line))
            .field("function", p.blacklistsEntry->function);
      });
}

}  // namespace

void writeJson(std::ostream& out, const LintReport& report, unsigned jobs) {
  ProfileRef profile;
  if (report.profile) profile = {report.profile->id, report.profile->name, report.profile->supported};
  const auto envelope = ReportEnvelope::current("lint", profile, report.root).toJson();
  out << "{";
  for (const auto& [key, value] : envelope.items()) {
    out << "\n ";
    writeJsonString(out, key);
    out << ": " << value.dump() << ",";
  }
  out << "\n";
  out << " \"files\": " << report.files.size() << ",\n \"predictions\": [";
  // The rows are rendered by `jobs` threads, each taking the next file of a
  // window of files, and written in file order: the same bytes as one
  // thread writes. A window is rendered and written at a time, so the text
  // held in memory stays bounded however many files the report has.
  const std::size_t total = report.files.size();
  const std::size_t window = std::max<std::size_t>(1, std::min<std::size_t>(jobs, total)) * kFilesPerPart;
  std::vector<std::string> rendered(std::min(window, total));
  bool first = true;
  for (std::size_t begin = 0; begin < total; begin += window) {
    const std::size_t count = std::min(total - begin, window);
    forEachOnThreads(jobs, count, [&](std::size_t k) {
      std::string& rows = rendered[k];
      rows.clear();
      for (const auto& p : report.files[begin + k].predictions) {
        rows += ",\n  ";
        writePrediction(rows, p);
      }
    });
    for (std::size_t k = 0; k < count; ++k) {
      if (rendered[k].empty()) continue;
      out << std::string_view(rendered[k]).substr(first ? 1 : 0);  // the first row has no comma before it
      first = false;
    }
  }
  out << "\n ],\n \"errors\": [";
  const char* sep = "\n  ";
  std::string row;
  for (const auto& file : report.files) {
    for (const auto& e : file.errors) {
      row = sep;
      sep = ",\n  ";
      ObjectWriter(row)
          .path(e.path)
          .field("line", static_cast<long long>(e.line))
          .field("kind", errorKind(e.kind))
          .field("message", e.message);
      out << row;
    }
  }
  out << "\n ],\n \"directives\": [";
  std::string directives;
  sep = "\n  ";
  for (const auto& file : report.files) {
    for (const auto& d : file.directives) {
      directives += sep;
      sep = ",\n  ";
      ObjectWriter(directives)
          .path(d.path)
          .field("line", static_cast<long long>(d.line))
          .field("column", static_cast<long long>(d.column))
          .field("id", directiveId(d.kind))
          .field("severity", diagnosticLevel(d.severity))
          .field("message", d.message);
    }
  }
  out << directives << "\n ],\n \"linted\": [";
  // The files the rules ran over (not those that failed to compile or to be
  // read): verify judges observations only in these.
  sep = "\n  ";
  std::string linted;
  for (const auto& file : report.files) {
    if (!file.analyzed) continue;
    linted += sep;
    sep = ",\n  ";
    appendJsonString(linted, file.path);
  }
  out << linted << "\n ]\n}\n";
}

}  // namespace ljcheck
