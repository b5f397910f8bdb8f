// Trace session lifecycle: attach the C handler with jit.attach (and, for
// coverage, the "record" handler), pause and resume counting, detach with the
// same function objects, and turn the captured events into a TraceReport.
#include "ljcheck/trace_session.h"

#include <algorithm>
#include <atomic>
#include <string_view>

#include "location.h"
#include "lua_api.h"
#include "site_aggregator.h"
#include "trace_capture.h"
#include "vmevent_attach.h"

namespace ljcheck {
namespace {

std::atomic<bool> gTraceSessionActive{false};

// The start instructions the VM rewrites when it blacklists a loop or function.
std::vector<bool> demotedOpcodes(const LiveProfile& profile) {
  static constexpr std::string_view kDemoted[] = {"IFORL", "IITERL", "ILOOP", "IFUNCF", "IFUNCV"};
  const auto& names = profile.facts.bytecodeNames;
  std::vector<bool> demoted(names.size(), false);
  for (std::size_t op = 0; op < names.size(); ++op)
    for (std::string_view name : kDemoted)
      if (names[op] == name) demoted[op] = true;
  return demoted;
}

// FORL and ITERL in their three forms end a loop; LOOP, ILOOP and JLOOP
// start a while or repeat loop (JLOOP holds a trace number, not a jump: no
// root trace starts at it, but a continuation's extent finds the loop's
// head by it once the loop has its trace); JMP and UCLO may be a while
// loop's back edge; CALL, CALLM and ITERC are what a calling frame is at;
// a trace that starts at a return starts at one of the four RETs; CALLT
// and CALLMT end a frame as they do; FORI, JFORI and ISNEXT jump forward.
std::vector<TraceCapture::LoopRole> loopRoles(const LiveProfile& profile) {
  using Role = TraceCapture::LoopRole;
  static constexpr std::pair<std::string_view, Role> kRoles[] = {
      {"FORL", Role::End}, {"IFORL", Role::End}, {"JFORL", Role::End}, {"ITERL", Role::End},
      {"IITERL", Role::End}, {"JITERL", Role::End}, {"LOOP", Role::Head}, {"ILOOP", Role::Head},
      {"JLOOP", Role::Head},
      {"JMP", Role::Jump}, {"UCLO", Role::Jump},
      {"ITERN", Role::Next}, {"CALL", Role::Call}, {"CALLM", Role::Call}, {"ITERC", Role::Call},
      {"RET", Role::Return}, {"RET0", Role::Return}, {"RET1", Role::Return}, {"RETM", Role::Return},
      {"CALLT", Role::TailCall}, {"CALLMT", Role::TailCall},
      {"FORI", Role::Skip}, {"JFORI", Role::Skip}, {"ISNEXT", Role::Skip}};
  const auto& names = profile.facts.bytecodeNames;
  std::vector<Role> roles(names.size(), Role::None);
  for (std::size_t op = 0; op < names.size(); ++op)
    for (const auto& [name, role] : kRoles)
      if (names[op] == name) roles[op] = role;
  return roles;
}

// The visited lines as "path:line", ordered by path, then line.
std::vector<std::string> visitedLocations(const VisitedLines& visited, const StringPool& strings,
                                          const LocationResolver& locations) {
  std::vector<std::pair<std::string, int>> lines;
  lines.reserve(visited.lines.size());
  for (const auto& [source, line] : visited.lines)
    lines.emplace_back(locations.displayPath(strings.text(source)), line);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const auto& [path, line] : lines) out.push_back(path + ":" + std::to_string(line));
  return out;
}

// The visited instructions' bytecode names by "path:line".
std::map<std::string, std::vector<std::string>> visitedInstructions(const VisitedLines& visited,
                                                                    const StringPool& strings,
                                                                    const LocationResolver& locations,
                                                                    const std::vector<std::string>& bytecodeNames) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [source, line, op] : visited.opcodes) {
    if (op < 0 || static_cast<std::size_t>(op) >= bytecodeNames.size()) continue;
    auto& names = out[locations.displayPath(strings.text(source)) + ":" + std::to_string(line)];
    const std::string& name = bytecodeNames[static_cast<std::size_t>(op)];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  for (auto& [location, names] : out) std::sort(names.begin(), names.end());
  return out;
}

}  // namespace

TraceSession::TraceSession(TraceOptions options, LiveProfile profile)
    : options_(std::move(options)), profile_(std::move(profile)) {}

std::unique_ptr<TraceSession> TraceSession::start(lua_State* L, TraceOptions options) {
  if (gTraceSessionActive.exchange(true))
    throw SessionError("a trace session is already active; stop it before starting another");
  int top = lua_gettop(L);
  std::unique_ptr<TraceSession> session;
  try {
    session.reset(new TraceSession(std::move(options), readLiveProfile(L)));
    session->locations_ = std::make_unique<LocationResolver>(session->options_.root);
    session->options_.root = session->locations_->root().path();
    std::size_t capacity = 1000;
    if (session->profile_.registered)
      capacity = static_cast<std::size_t>(session->profile_.registered->param("maxtrace", 1000));
    if (session->options_.maxSites < 1) throw SessionError("the site limit (maxSites) must be at least 1");
    session->capture_ =
        std::make_unique<TraceCapture>(demotedOpcodes(session->profile_), capacity, session->options_.maxSites);
    lua::pushRequired(L, "jit.util");
    session->capture_->loopRoles = loopRoles(session->profile_);
    pushTraceHandler(L, session->capture_.get(), -1);
    attachHandler(L, "trace", session->handlerRef_, kTraceChainUpvalue, session->chainedRef_);
    if (session->options_.coverage) {
      pushRecordHandler(L, session->capture_.get(), -1);
      attachHandler(L, "record", session->recordHandlerRef_, kRecordChainUpvalue, session->recordChainedRef_);
    }
  } catch (const std::exception& e) {
    lua_settop(L, top);
    if (session) {
      try {  // the trace handler may be attached already
        session->detachHandlers(L);
        session->stopped_ = true;  // nothing attached any more: the capture can go
      } catch (const std::exception&) {  // still attached: keep the capture alive, muted
        if (session->capture_) session->capture_.release()->paused = true;
        session->stopped_ = true;
      }
      lua_settop(L, top);
    }
    gTraceSessionActive = false;
    if (dynamic_cast<const SessionError*>(&e)) throw;
    throw SessionError(std::string("cannot start a trace session: ") + e.what());
  }
  lua_settop(L, top);
  session->startedAt_ = std::chrono::steady_clock::now();
  return session;
}

TraceSession::~TraceSession() {
  if (stopped_) return;
  // Never stopped: the handler may still be attached and point at the
  // capture, so the capture outlives the session, muted.
  if (capture_) capture_.release()->paused = true;
  gTraceSessionActive = false;
}

void TraceSession::pause() {
  if (stopped_) throw SessionError("trace session already stopped");
  capture_->paused = true;
}

void TraceSession::resume() {
  if (stopped_) throw SessionError("trace session already stopped");
  capture_->paused = false;
}

bool TraceSession::paused() const { return !stopped_ && capture_->paused; }

void TraceSession::detach(lua_State* L) {
  stopped_ = true;
  gTraceSessionActive = false;
  int top = lua_gettop(L);
  try {
    detachHandlers(L);
  } catch (const std::exception&) {
    lua_settop(L, top);
    capture_.release()->paused = true;  // still attached: keep the capture alive, muted
    throw;
  }
  lua_settop(L, top);
}

void TraceSession::detachHandlers(lua_State* L) {
  detachHandler(L, handlerRef_, "trace", chainedRef_);
  detachHandler(L, recordHandlerRef_, "record", recordChainedRef_);
}

TraceReport TraceSession::stop(lua_State* L) {
  if (stopped_) throw SessionError("trace session already stopped");
  auto stoppedAt = std::chrono::steady_clock::now();
  detach(L);
  TraceReport report;
  report.durationSec = std::chrono::duration<double>(stoppedAt - startedAt_).count();
  report.envelope = ReportEnvelope::current("runtime", {profile_.id, profile_.name, profile_.supported}, options_.root);
  if (!options_.script.empty()) report.script = locations_->root().show(options_.script);
  AggregationContext context{profile_, ReasonCatalog::builtin(), *locations_, options_.includeBenign};
  aggregateSites(capture_->events, capture_->strings, context, report);
  report.coverage = options_.coverage;
  report.includesBenign = options_.includeBenign;
  if (report.coverage) {
    report.visited = visitedLocations(capture_->visited, capture_->strings, *locations_);
    report.visitedInstructions =
        visitedInstructions(capture_->visited, capture_->strings, *locations_, profile_.facts.bytecodeNames);
  }
  report.collector.memoryBytes = capture_->bytesInUse();
  capture_.reset();
  return report;
}

void TraceSession::cancel(lua_State* L) noexcept {
  if (stopped_) return;
  try {
    detach(L);
  } catch (const std::exception&) {
    // The VM refused to detach; the capture stays alive and muted.
  }
  capture_.reset();
}

void TraceSession::abandon() noexcept {
  if (stopped_) return;
  stopped_ = true;
  gTraceSessionActive = false;
  capture_.reset();
}

}  // namespace ljcheck
