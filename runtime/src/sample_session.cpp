// Sample session lifecycle: start and stop LuaJIT's profiler around a
// SampleCapture, then turn the capture into a SampleReport: frames named,
// stacks trimmed to the root module, the zone filter applied, equal stacks merged.
#include "ljcheck/sample_session.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <tuple>

#include "location.h"
#include "profile_guard.h"
#include "lua_api.h"
#include "sample_capture.h"

namespace ljcheck {
namespace {

std::atomic<bool> gSampleSessionActive{false};

// The process's CPU time, what LuaJIT's profiling timer (ITIMER_PROF) counts.
double processCpuMs() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// "a/b" keeps "a", "a/b" and "a/b/c", not "a/bc".
bool inZone(const std::string& path, const std::string& prefix) {
  if (prefix.empty()) return true;
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '/';
}

// "@src/app/render.lua" -> "src.app.render"; "@x/init.lua" -> "x".
std::string moduleOfChunk(std::string_view chunk) {
  if (chunk.empty() || chunk.front() != '@') return {};
  std::string name(chunk.substr(1));
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".lua") == 0) name.resize(name.size() - 4);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, "/init") == 0) name.resize(name.size() - 5);
  while (name.rfind("./", 0) == 0) name.erase(0, 2);
  std::replace(name.begin(), name.end(), '/', '.');
  return name;
}

bool chunkIsModule(std::string_view chunk, const std::string& module) {
  std::string name = moduleOfChunk(chunk);
  if (name.size() < module.size() || name.compare(name.size() - module.size(), module.size(), module) != 0)
    return false;
  return name.size() == module.size() || name[name.size() - module.size() - 1] == '.';
}

class ReportBuilder {
 public:
  ReportBuilder(const SampleCapture& capture, const SampleOptions& options, const LocationResolver& locations)
      : capture_(capture), options_(options), locations_(locations) {}

  SampleReport build() {
    SampleReport report;
    report.intervalMs = options_.intervalMs;
    report.stackDepth = options_.stackDepth;
    report.compiledStacks = compiledStacksName(options_.compiledStacks);
    report.zoneFilter = options_.zone;
    report.rootModule = options_.rootModule;
    std::map<std::pair<std::string, std::vector<FrameId>>, StateCounts> merged;
    for (const auto& [key, counts] : capture_.stacks) {
      const std::string& zone = capture_.strings.text(key.first);
      if (!inZone(zone, options_.zone)) continue;
      merged[{zone, trimmed(key.second)}] += counts;
      report.states += counts;
    }
    report.samples = report.states.total();
    for (const auto& [key, counts] : merged) {
      SampleRecord row;
      row.zonePath = key.first;
      for (auto it = key.second.rbegin(); it != key.second.rend(); ++it) row.frames.push_back(label(*it));
      row.states = counts;
      report.rows.push_back(std::move(row));
    }
    std::stable_sort(report.rows.begin(), report.rows.end(),
                     [](const SampleRecord& a, const SampleRecord& b) { return a.count() > b.count(); });
    for (const auto& [key, counts] : capture_.lines) {
      const auto& [zone, source, functionLine, line] = key;
      if (!inZone(capture_.strings.text(zone), options_.zone)) continue;
      report.lines.push_back({path(source), line, capture_.strings.text(zone), counts, functionLine});
    }
    std::stable_sort(report.lines.begin(), report.lines.end(), [](const LineSamples& a, const LineSamples& b) {
      return std::tie(a.path, a.line, a.zonePath, a.functionLine) < std::tie(b.path, b.line, b.zonePath, b.functionLine);
    });
    for (const auto& [key, counts] : capture_.offTraceCalls) {
      const std::string& zone = capture_.strings.text(key.first);
      if (!inZone(zone, options_.zone)) continue;
      OffTraceStack stack{zone, {}, counts.interpreted, counts.cCode};
      for (auto it = key.second.rbegin(); it != key.second.rend(); ++it)
        stack.frames.push_back({function(it->first), it->second});
      report.offTraceStacks.push_back(std::move(stack));
    }
    return report;
  }

 private:
  // Innermost first, without the host's nameless C entry frames (luajit's
  // pmain); with a root module, up to its outermost frame.
  std::vector<FrameId> trimmed(std::vector<FrameId> stack) const {
    while (!stack.empty() && capture_.frames[stack.back()].isC && capture_.frames[stack.back()].name == 0)
      stack.pop_back();
    if (options_.rootModule.empty()) return stack;
    for (std::size_t i = stack.size(); i-- > 0;) {
      const SampledFrame& f = capture_.frames[stack[i]];
      if (!f.isC && chunkIsModule(capture_.strings.text(f.source), options_.rootModule))
        return {stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(i + 1)};
    }
    return stack;  // no frame from the module: kept whole
  }

  const std::string& path(StringId source) {
    auto [it, fresh] = paths_.try_emplace(source);
    if (fresh) it->second = locations_.displayPath(capture_.strings.text(source));
    return it->second;
  }

  // "name@path:line" for a Lua function (line it was defined on; a main
  // chunk is "main@path"), "name@[C]" for a C or fast function.
  std::string label(FrameId id) {
    const SampledFrame& f = capture_.frames[id];
    if (f.overflow) return "(stacks past the limit of " + std::to_string(kMaxSampledStacks) + ")";
    std::string name = capture_.strings.text(f.name);
    if (f.isC) return (name.empty() ? std::string("?") : name) + "@[C]";
    if (f.lineDefined == 0) return "main@" + path(f.source);
    return (name.empty() ? std::string("?") : name) + "@" + path(f.source) + ":" + std::to_string(f.lineDefined);
  }

  FrameFunction function(FrameId id) {
    const SampledFrame& f = capture_.frames[id];
    if (f.overflow) return {};
    if (f.isC) return {"", -1, capture_.strings.text(f.name)};
    return {path(f.source), f.lineDefined, ""};
  }

  const SampleCapture& capture_;
  const SampleOptions& options_;
  const LocationResolver& locations_;
  std::map<StringId, std::string> paths_;
};

}  // namespace

const char* compiledStacksName(CompiledStacks where) {
  return where == CompiledStacks::AtFunctionBoundary ? "function" : "exit";
}

SampleSession::SampleSession(SampleOptions options) : options_(std::move(options)) {}

std::unique_ptr<SampleSession> SampleSession::start(lua_State* L, SampleOptions options) {
  if (options.intervalMs < 1) throw SessionError("sample interval must be at least 1 ms");
  if (options.stackDepth < 1) throw SessionError("sample stack depth must be at least 1");
  const ProfilerApi& profiler = hostProfiler();
  if (gSampleSessionActive.exchange(true))
    throw SessionError("a sample session is already active; stop it before starting another");
  std::unique_ptr<SampleSession> session;
  try {
    session.reset(new SampleSession(std::move(options)));
    session->locations_ = std::make_unique<LocationResolver>(session->options_.root);
    session->options_.root = session->locations_->root().path();
    session->capture_ = std::make_unique<SampleCapture>(session->options_.stackDepth);
  } catch (...) {
    gSampleSessionActive = false;
    throw;
  }
  session->capture_->referenceZones(L);
  // No mode letter: samples in compiled code wait for the trace's exit. 'f':
  // profiler checks at function boundaries in traces, after a flush.
  std::string mode = session->options_.compiledStacks == CompiledStacks::AtFunctionBoundary ? "f" : "";
  mode += "i" + std::to_string(session->options_.intervalMs);
  session->runningSince_ = processCpuMs();
  profiler.start(L, mode.c_str(), onProfilerSample, session->capture_.get());
  guardProfile(L);
  return session;
}

SampleSession::~SampleSession() {
  if (stopped_) return;
  // Never stopped (no VM to stop the profiler on): keep the capture alive, muted.
  if (capture_) capture_.release()->paused = true;
  gSampleSessionActive = false;
}

void SampleSession::pause() {
  if (stopped_) throw SessionError("sample session already stopped");
  if (!capture_->paused) cpuMs_ += processCpuMs() - runningSince_;
  capture_->paused = true;
}

void SampleSession::resume() {
  if (stopped_) throw SessionError("sample session already stopped");
  if (capture_->paused) runningSince_ = processCpuMs();
  capture_->paused = false;
}

bool SampleSession::paused() const { return !stopped_ && capture_->paused; }

SampleReport SampleSession::stop(lua_State* L) {
  if (stopped_) throw SessionError("sample session already stopped");
  hostProfiler().stop(L);
  if (!capture_->paused) cpuMs_ += processCpuMs() - runningSince_;
  unguardProfile(L);
  stopped_ = true;
  gSampleSessionActive = false;
  capture_->releaseZones(L);
  capture_->releaseFunctions(L);
  SampleReport report = ReportBuilder(*capture_, options_, *locations_).build();
  report.cpuMs = cpuMs_;
  report.samplesTaken = capture_->taken;
  capture_.reset();
  return report;
}

void SampleSession::cancel(lua_State* L) noexcept {
  if (stopped_) return;
  try {
    hostProfiler().stop(L);
  } catch (const std::exception&) {
  }
  unguardProfile(L);
  stopped_ = true;
  gSampleSessionActive = false;
  capture_->releaseZones(L);
  capture_->releaseFunctions(L);
  capture_.reset();
}

void SampleSession::abandon() noexcept {
  if (stopped_) return;
  stopped_ = true;
  gSampleSessionActive = false;
  capture_.reset();
}

}  // namespace ljcheck
