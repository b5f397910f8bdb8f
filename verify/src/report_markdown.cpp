// The verification report as Markdown for a pull-request comment: the
// summary first, then the sites by cost, the zones and the details, cut at a
// size limit with a line that says what was left out.
#include <fmt/format.h>

#include "html_text.h"
#include "ljcheck/reason.h"
#include "ljcheck/verification_report.h"

namespace ljcheck {
namespace {

std::string summary(const VerificationReport& r) {
  const Verification& v = r.verification;
  const Tally& t = v.total;
  const ProfileRef& p = v.envelope.traceProfile;
  std::string out = "## ljcheck verification report\n\n";
  out += fmt::format("**{} confirmed, {} missed, {} latent** (precision {}, recall {}); not judged: {} "
                     "unexercised, {} masked, {} following a predicted site.\n\n",
                     t.confirmed, t.missed, t.latent, formatRatio(t.precision(), "—"), formatRatio(t.recall(), "—"),
                     t.unexercised, t.masked, t.follows);
  long total = r.samples.total();
  if (total > 0)
    out += fmt::format("Samples: {}, **{:.1f}% compiled, {:.1f}% interpreted**, {:.1f}% C code, {:.1f}% GC.\n\n", total,
                       100 * compiledShare(r.samples), 100 * interpretedShare(r.samples),
                       total ? 100.0 * static_cast<double>(r.samples.cCode) / static_cast<double>(total) : 0.0,
                       total ? 100.0 * static_cast<double>(r.samples.collecting) / static_cast<double>(total) : 0.0);
  else
    out += "Samples: none (" + whyNoSamples(r) + ").\n\n";
  double seconds = 0;
  for (const auto& run : r.runs) seconds += run.durationSec;
  out += fmt::format("Recorder profile `{}`, reason catalog `{}` version {}, {} run(s), {:.2f} s.\n\n",
                     markdownEscape(p.name.empty() ? p.id : p.name), markdownEscape(v.envelope.reasonCatalogId),
                     v.envelope.reasonCatalogVersion, r.runs.size(), seconds);
  for (const auto& note : r.notes) out += "> " + markdownEscape(note) + "\n";
  if (!r.notes.empty()) out += "\n";
  return out;
}

std::string siteRow(const JoinedSite& s) {
  // "—": nothing was measured (no sampled run observed it, or it is a split).
  std::string cost = s.costMeasured ? fmt::format("{:.1f}", s.costMs) : "—";
  return fmt::format("| {} | `{}` | {} | {} | `{}` | {} | {} | {}{} |\n", toString(s.status),
                     markdownEscape(s.reasonId), s.reasonClass,
                     std::string(lintSeverityWord(s)) + (runOutcome(s).empty() ? "" : " (run: " + markdownEscape(runOutcome(s)) + ")"),
                     markdownEscape(s.location),
                     markdownEscape(s.zonePath), s.observedCount, cost, s.costShared ? " (shared)" : "");
}

std::string zoneTable(const VerificationReport& r) {
  if (r.zones.empty()) return "";
  // The columns of the HTML page's table, its cost column's title said below.
  std::string out =
      "### Zones\n\n| zone | samples | compiled | interpreted | sites | observed | cost ms |\n"
      "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& z : r.zones)
    out += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {} | {} | {:.1f} |\n",
                       z.zonePath.empty() ? "(outside any zone)" : markdownEscape(z.zonePath), z.samples.total(),
                       100 * compiledShare(z.samples), 100 * interpretedShare(z.samples), z.sites, z.observations,
                       z.costMs);
  return out +
         "\n*observed*: the aborts and stitches seen in the zone. *cost ms*: the interpreted time of the trace starts "
         "that aborted in the zone, wherever they then ran (a blacklisted start runs interpreted in every zone).\n\n";
}

std::string detail(const VerificationReport& r, const JoinedSite& s) {
  std::string out = fmt::format("<details><summary><code>{}</code> at <code>{}</code> ({})</summary>\n\n",
                                htmlEscape(s.reasonId), htmlEscape(s.location), toString(s.status));
  auto it = r.excerpts.find(s.location);
  if (it != r.excerpts.end() && !it->second.missing.empty()) {
    out += "_Excerpt omitted: " + markdownEscape(it->second.missing) + "_\n\n";
  } else if (it != r.excerpts.end()) {
    out += "```lua\n";
    for (std::size_t k = 0; k < it->second.lines.size(); ++k) {
      int number = it->second.firstLine + static_cast<int>(k);
      std::string line = it->second.lines[k];
      for (auto fence = line.find("```"); fence != std::string::npos; fence = line.find("```")) line[fence] = '\'';
      out += fmt::format("{}{:>4} | {}\n", number == s.line ? '>' : ' ', number, line);
    }
    out += "```\n\n";
  }
  if (const Reason* reason = ReasonCatalog::builtin().find(ReasonId::parse(s.reasonId).code()))
    out += fmt::format("**{}.** {}\n\n**Advice:** {}\n\n", markdownEscape(reason->title),
                       markdownEscape(reason->explanation), markdownEscape(reason->advice));
  if (s.maskedBy)
    out += fmt::format("Masked by `{}` at `{}`: fix that one first.\n\n", markdownEscape(s.maskedBy->reasonId),
                       markdownEscape(s.maskedBy->location));
  return out + "</details>\n\n";
}

// A piece is added only while the text stays under the limit, keeping room
// for the line that says what was cut.
class Budget {
 public:
  Budget(std::string& text, std::size_t maxBytes) : text_(text), max_(maxBytes > kReserve ? maxBytes - kReserve : 0) {}
  bool add(const std::string& piece) {
    if (text_.size() + piece.size() > max_) return false;
    text_ += piece;
    return true;
  }

 private:
  static constexpr std::size_t kReserve = 200;
  std::string& text_;
  std::size_t max_;
};

}  // namespace

void writeReportMarkdown(std::ostream& out, const VerificationReport& r, std::size_t maxBytes) {
  std::string text;
  Budget budget(text, maxBytes);
  const auto& sites = r.verification.sites;
  std::size_t rows = 0, details = 0;
  bool complete = budget.add(summary(r));
  if (complete && !sites.empty() &&
      budget.add("### Sites by cost\n\n| status | reasonId | class | lint | location | zone | count | cost ms |\n"
                 "|---|---|---|---|---|---|---:|---:|\n")) {
    while (rows < sites.size() && budget.add(siteRow(sites[rows]))) ++rows;
    budget.add("\n");
  }
  if (rows == sites.size()) complete = budget.add(zoneTable(r));
  if (complete && rows == sites.size() && !sites.empty() && budget.add("### Details\n\n"))
    while (details < sites.size() && budget.add(detail(r, sites[details]))) ++details;
  if (rows < sites.size() || details < sites.size() || !complete)
    text += fmt::format("_Cut to stay under {} bytes: {} of {} sites listed, {} with details{}. The HTML report "
                        "(`ljcheck report --format html`) has them all._\n",
                        maxBytes, rows, sites.size(), details, complete ? "" : ", zones left out");
  out << text;
}

}  // namespace ljcheck
