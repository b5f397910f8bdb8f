// The verification report as one self-contained HTML page: inline style,
// inline script, inline SVG; a Content-Security-Policy that forbids every
// request, so the page opens from disk and never reaches the network.
#include <fmt/format.h>

#include "html_text.h"
#include "ljcheck/reason.h"
#include "ljcheck/verification_report.h"

namespace ljcheck {
namespace {

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1280px;padding:0 16px 48px;color:#1b1b1b}
h1{font-size:22px;margin:20px 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}th[data-key]{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12.5px ui-monospace,monospace}pre{background:#f7f7f7;padding:6px 8px;overflow-x:auto;margin:6px 0}
.excerpt .hit{background:#ffe0b2;display:block}.missing{color:#a15c00}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 16px}dl.meta dt{font-weight:600}dl.meta dd{margin:0}
.bar{display:flex;height:16px;width:100%;max-width:640px;border-radius:3px;overflow:hidden;background:#eee}
.bar span{display:block;height:100%}
.s-compiled{fill:#43a047;background:#43a047}.s-interpreted{fill:#e53935;background:#e53935}
.s-cCode{fill:#1e88e5;background:#1e88e5}.s-collecting{fill:#8e24aa;background:#8e24aa}
.s-compiling{fill:#fb8c00;background:#fb8c00}.s-unknown{fill:#9e9e9e;background:#9e9e9e}
.legend span.key{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;border-radius:2px}
.status-confirmed{color:#1b5e20}.status-missed{color:#b71c1c;font-weight:600}.status-latent{color:#e65100}
.controls{margin:8px 0;display:flex;gap:12px;align-items:center}
svg.flame text{font:11px ui-monospace,monospace;fill:#fff;pointer-events:none}svg.flame rect{stroke:#fff;stroke-width:.5}
section.site{border-top:1px solid #eee;padding:6px 0}
)css";

constexpr const char* kScript = R"js(
(function () {
  var table = document.getElementById('sites');
  if (!table) return;
  var body = table.tBodies[0], headers = table.tHead.rows[0].cells;
  function value(row, i, numeric) {
    var cell = row.cells[i], v = cell.getAttribute('data-value');
    if (v === null) v = cell.textContent;
    return numeric ? parseFloat(v) : v;
  }
  function sortBy(th) {
    var numeric = th.getAttribute('data-type') === 'num', current = th.getAttribute('aria-sort');
    var descending = current ? current === 'ascending' : numeric;
    for (var k = 0; k < headers.length; k++) headers[k].removeAttribute('aria-sort');
    th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
    var i = th.cellIndex, rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, i, numeric), y = value(b, i, numeric);
      var c = numeric ? x - y : String(x).localeCompare(String(y));
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  for (var k = 0; k < headers.length; k++)
    if (headers[k].hasAttribute('data-key'))
      headers[k].addEventListener('click', function (e) { sortBy(e.currentTarget); });
  var text = document.getElementById('filter'), status = document.getElementById('status-filter');
  var shown = document.getElementById('shown');
  function apply() {
    var needle = text.value.toLowerCase(), wanted = status.value, n = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var ok = (!wanted || r.getAttribute('data-status') === wanted) &&
               (!needle || r.textContent.toLowerCase().indexOf(needle) >= 0);
      r.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = n;
  }
  text.addEventListener('input', apply);
  status.addEventListener('change', apply);
})();
)js";

const char* const kStates[] = {"compiled", "interpreted", "cCode", "collecting", "compiling"};

long stateCount(const StateSamples& s, std::string_view state) {
  if (state == "compiled") return s.compiled;
  if (state == "interpreted") return s.interpreted;
  if (state == "cCode") return s.cCode;
  if (state == "collecting") return s.collecting;
  return s.compiling;
}

double percent(long part, long whole) { return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole); }

std::string stateBar(const StateSamples& s) {
  std::string out = R"(<div class="bar">)";
  for (const char* state : kStates) {
    double p = percent(stateCount(s, state), s.total());
    if (p > 0)
      out += fmt::format(R"(<span class="s-{}" style="width:{:.2f}%" title="{} {:.1f}%"></span>)", state, p,
                         stateLabel(state), p);
  }
  return out + "</div>";
}

std::string legend() {
  std::string out = R"(<p class="legend">VM state:)";
  for (const char* state : kStates)
    out += fmt::format(R"(<span class="key s-{}"></span>{})", state, stateLabel(state));
  return out + R"(<span class="key s-unknown"></span>not recorded</p>)";
}

void writeHeader(std::ostream& out, const VerificationReport& r) {
  const Verification& v = r.verification;
  const ProfileRef& p = v.envelope.traceProfile;
  out << "<header><h1>ljcheck verification report</h1><dl class=\"meta\">";
  out << fmt::format("<dt>Recorder profile</dt><dd id=\"profile\" title=\"{}\">{}</dd>", htmlEscape(p.id),
                     htmlEscape(p.name.empty() ? p.id : p.name));
  out << fmt::format("<dt>Reason catalog</dt><dd id=\"catalog\">{} version {}</dd>",
                     htmlEscape(v.envelope.reasonCatalogId), v.envelope.reasonCatalogVersion);
  if (!v.envelope.root.empty()) out << fmt::format("<dt>Root</dt><dd><code>{}</code></dd>", htmlEscape(v.envelope.root));
  double seconds = 0;
  for (const auto& run : r.runs) seconds += run.durationSec;
  out << fmt::format("<dt>Runs</dt><dd>{} run(s), {:.2f} s in all</dd>", r.runs.size(), seconds);
  long total = r.samples.total();
  out << fmt::format("<dt>Samples</dt><dd id=\"samples\">{}", total);
  for (const char* state : kStates)
    out << fmt::format(", {} {} ({:.1f}%)", stateLabel(state), stateCount(r.samples, state),
                       percent(stateCount(r.samples, state), total));
  out << "</dd>";
  out << fmt::format("<dt>Compiled vs interpreted</dt><dd id=\"share\" data-compiled=\"{:.4f}\" data-interpreted=\"{:.4f}\">"
                     "{:.1f}% compiled, {:.1f}% interpreted{}</dd>",
                     compiledShare(r.samples), interpretedShare(r.samples), 100 * compiledShare(r.samples),
                     100 * interpretedShare(r.samples), total == 0 ? " (no samples: " + htmlEscape(whyNoSamples(r)) + ")" : std::string());
  out << "</dl>" << stateBar(r.samples) << legend();
  out << R"(<table id="runs"><thead><tr><th>runtime report</th><th class="num">duration s</th><th class="num">aborts</th><th class="num">samples</th><th class="num">ms per sample</th><th class="num">compiled</th><th class="num">interpreted</th></tr></thead><tbody>)";
  for (const auto& run : r.runs)
    out << fmt::format(R"(<tr><td><code>{}</code></td><td class="num">{:.3f}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{:.1f}</td><td class="num">{:.1f}%</td><td class="num">{:.1f}%</td></tr>)",
                       htmlEscape(run.file), run.durationSec, run.totalAborts, run.samples.total(), run.msPerSample,
                       100 * compiledShare(run.samples), 100 * interpretedShare(run.samples));
  out << "</tbody></table>";
  const Tally& t = v.total;
  out << fmt::format("<p id=\"totals\">{} confirmed, {} missed, {} latent; precision {}, recall {}. "
                     "Not judged: {} unexercised, {} masked, {} in chunks loaded from strings, {} following a "
                     "predicted site.</p></header>",
                     t.confirmed, t.missed, t.latent, formatRatio(t.precision(), "—"), formatRatio(t.recall(), "—"),
                     t.unexercised, t.masked, t.loadedChunk, t.follows);
}

void writeNotes(std::ostream& out, const VerificationReport& r) {
  if (r.notes.empty()) return;
  out << "<h2>Notes</h2><ul id=\"notes\">";
  for (const auto& note : r.notes) out << "<li>" << htmlEscape(note) << "</li>";
  out << "</ul>";
}

void writeSiteTable(std::ostream& out, const VerificationReport& r) {
  const auto& sites = r.verification.sites;
  out << "<h2>Sites</h2><div class=\"controls\"><label>Filter <input id=\"filter\" type=\"search\" "
         "placeholder=\"reasonId, path, zone...\"></label><label>Status <select id=\"status-filter\"><option value=\"\">all</option>";
  for (auto s : {JoinedSite::Status::Confirmed, JoinedSite::Status::Missed, JoinedSite::Status::Latent,
                 JoinedSite::Status::Unexercised, JoinedSite::Status::Masked, JoinedSite::Status::LoadedChunk,
                 JoinedSite::Status::Follows})
    out << fmt::format("<option>{}</option>", toString(s));
  out << fmt::format("</select></label><span><span id=\"shown\">{}</span> of {} sites shown</span></div>", sites.size(),
                     sites.size());
  out << R"(<table id="sites"><thead><tr><th data-key="status">status</th><th data-key="reasonId">reasonId</th>)"
         R"(<th data-key="class">class</th><th data-key="lint">lint</th><th data-key="location">location</th>)"
         R"(<th data-key="zone">zone</th><th data-key="count" data-type="num" class="num">count</th>)"
         R"(<th data-key="cost" data-type="num" class="num" aria-sort="descending">cost ms</th></tr></thead><tbody>)";
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const JoinedSite& s = sites[i];
    std::string status(toString(s.status));
    // "—" (sorted below every measured cost): nothing was measured.
    std::string cost = s.costMeasured ? fmt::format("{:.1f}", s.costMs) : "—";
    out << fmt::format(R"(<tr class="site" data-status="{}"><td class="status-{}">{}</td><td><code>{}</code></td><td>{}</td><td>{}</td>)"
                       R"(<td data-value="{}"><a href="#site-{}">{}</a></td><td>{}</td><td class="num">{}</td><td class="num" data-value="{:.3f}"{}>{}{}</td></tr>)",
                       status, status, status, htmlEscape(s.reasonId), htmlEscape(s.reasonClass),
                       htmlEscape(std::string(lintSeverityWord(s))) + (runOutcome(s).empty() ? "" : " &middot; run: " + htmlEscape(runOutcome(s))),
                       htmlEscape(s.location), i, htmlEscape(s.location),
                       htmlEscape(s.zonePath), s.observedCount, s.costMeasured ? s.costMs : -1.0,
                       s.costShared ? R"( title="shared with other sites of the same trace start: costs overlap")" : "",
                       cost, s.costShared ? " (shared)" : "");
  }
  out << "</tbody></table>";
}

void writeExcerpt(std::ostream& out, const VerificationReport& r, const JoinedSite& s) {
  auto it = r.excerpts.find(s.location);
  if (it == r.excerpts.end()) return;
  const SourceExcerpt& e = it->second;
  if (!e.missing.empty()) {
    out << "<p class=\"missing\">Excerpt omitted: " << htmlEscape(e.missing) << "</p>";
    return;
  }
  out << "<pre class=\"excerpt\">";
  for (std::size_t k = 0; k < e.lines.size(); ++k) {
    int number = e.firstLine + static_cast<int>(k);
    std::string text = fmt::format("{:>5} | {}", number, htmlEscape(e.lines[k]));
    out << (number == s.line ? "<span class=\"hit\">" + text + "</span>" : text + "\n");
  }
  out << "</pre>";
}

void writeSiteDetails(std::ostream& out, const VerificationReport& r) {
  const auto& sites = r.verification.sites;
  if (sites.empty()) return;
  out << "<h2>Sites in detail</h2>";
  for (std::size_t i = 0; i < sites.size(); ++i) {
    const JoinedSite& s = sites[i];
    out << fmt::format(R"(<section class="site" id="site-{}"><h3><code>{}</code> at <code>{}</code> ({})</h3>)", i,
                       htmlEscape(s.reasonId), htmlEscape(s.location), toString(s.status));
    writeExcerpt(out, r, s);
    if (const Reason* reason = ReasonCatalog::builtin().find(ReasonId::parse(s.reasonId).code()))
      out << fmt::format("<p><b>{}.</b> {}</p><p class=\"advice\"><b>Advice:</b> {}</p>", htmlEscape(reason->title),
                         htmlEscape(reason->explanation), htmlEscape(reason->advice));
    if (s.maskedBy)
      out << fmt::format(R"(<p class="masked-by">Masked by <code>{}</code> at <code>{}</code>: fix that one first.</p>)",
                         htmlEscape(s.maskedBy->reasonId), htmlEscape(s.maskedBy->location));
    out << "</section>";
  }
}

void writeFlameGraph(std::ostream& out, const VerificationReport& r) {
  out << "<h2>Flame graph</h2><div id=\"flame\">";
  std::string svg = flameGraphSvg(r.stacks, 1240);
  if (svg.empty())
    out << "<p>No sampled stacks: run with <code>ljcheck run --json FILE --sample STACKS</code> (the runtime JSON "
           "then carries the stacks), or pass <code>--stacks</code> with a collapsed or speedscope file.</p>";
  else
    out << fmt::format("<p>{} ({}); the root is at the bottom, hover a frame for its share.</p>",
                       htmlEscape(r.stacks.file), htmlEscape(r.stacks.unit))
        << legend() << svg;
  out << "</div>";
}

void writeZones(std::ostream& out, const VerificationReport& r) {
  out << R"(<h2>Zones</h2><table id="zones"><thead><tr><th>zone</th><th class="num">samples</th><th class="num">compiled</th>)"
         R"(<th class="num">interpreted</th><th>VM states</th><th class="num">sites</th><th class="num">observed</th>)"
         R"(<th class="num" title="the interpreted time of the trace starts that aborted in this zone, wherever they then ran: a blacklisted start runs interpreted in every zone">cost ms</th></tr></thead><tbody>)";
  for (const auto& z : r.zones)
    out << fmt::format(R"(<tr><td>{}</td><td class="num">{}</td><td class="num">{:.1f}%</td><td class="num">{:.1f}%</td><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{:.1f}</td></tr>)",
                       z.zonePath.empty() ? "(outside any zone)" : htmlEscape(z.zonePath), z.samples.total(),
                       100 * compiledShare(z.samples), 100 * interpretedShare(z.samples), stateBar(z.samples), z.sites,
                       z.observations, z.costMs);
  out << "</tbody></table>";
}

}  // namespace

void writeReportHtml(std::ostream& out, const VerificationReport& r) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>ljcheck verification report</title><style>"
      << kStyle << "</style></head><body>";
  writeHeader(out, r);
  writeNotes(out, r);
  writeSiteTable(out, r);
  writeFlameGraph(out, r);
  writeZones(out, r);
  writeSiteDetails(out, r);
  out << "<script>" << kScript << "</script></body></html>\n";
}

}  // namespace ljcheck
