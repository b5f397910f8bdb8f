// The sample report: what a sample session saw, as collapsed stacks with the
// VM state of every sample (compiled, interpreted, C code, garbage collector,
// JIT compiler), per zone, and per source line. Plain C++, no Lua: the `ljcheck
// run` host, the Lua module and later `ljcheck verify` share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ljcheck {

// LuaJIT's profiler VM states: 'N', 'I', 'C', 'G', 'J'.
enum class VmState : std::uint8_t { Compiled, Interpreted, CCode, Collecting, Compiling };
inline constexpr int kVmStateCount = 5;
// "compiled", "interpreted", "cCode", "collecting", "compiling": report field names.
const char* fieldName(VmState state);
// The state LuaJIT's profiler callback names by its letter; Compiling for an unknown letter.
VmState vmStateFromLetter(int letter);

struct StateCounts {
  std::uint64_t counts[kVmStateCount] = {};
  std::uint64_t& operator[](VmState s) { return counts[static_cast<int>(s)]; }
  std::uint64_t operator[](VmState s) const { return counts[static_cast<int>(s)]; }
  std::uint64_t total() const;
  StateCounts& operator+=(const StateCounts& other);
};

// The function a frame of a sampled stack ran: its file as report paths are
// shown and the line it was defined on (0: a main chunk); a C or fast
// function has no path and line -1, its name only.
struct FrameFunction {
  std::string path;
  int line = -1;
  std::string cName;  // a C or fast function's name ("pcall"), "" for a Lua one
  bool isLua() const { return line >= 0; }
};

// A frame of a sampled stack: the function it ran and the line it was on
// (-1 in a C function).
struct SampledCall {
  FrameFunction function;
  int line = -1;
};

// The samples taken outside compiled code on one stack in a zone, with
// each frame's line, root first: which loop or function entry a callee ran
// under, for site costs (site_cost.cpp). Interpreted and C-code samples are
// counted apart (a C function's are taken once it returned, on its
// caller's line). Not written to reports.
struct OffTraceStack {
  std::string zonePath;
  std::vector<SampledCall> frames;
  std::uint64_t samples = 0;
  std::uint64_t cCodeSamples = 0;
};

// One Sample record: a stack in a zone, with its count by VM state.
struct SampleRecord {
  std::string zonePath;             // "" when no zone was open
  std::vector<std::string> frames;  // root frame first
  StateCounts states;
  std::uint64_t count() const { return states.total(); }
  std::string stack() const;  // frames joined by ';'
};

// Samples whose innermost Lua frame was on one line, in one function (a
// closure written on its parent's line is a function of its own).
struct LineSamples {
  std::string path;  // as report paths are shown (project_path.h)
  int line = 0;
  std::string zonePath;
  StateCounts states;
  int functionLine = 0;  // the function's first line (linedefined; 0: a main chunk)
  std::string location() const { return path + ":" + std::to_string(line); }
};

struct SampleReport {
  int intervalMs = 10;
  int stackDepth = 16;              // frames kept per sample, innermost first
  std::string compiledStacks = "exit";  // where compiled samples got their stack (SampleOptions)
  std::uint64_t samples = 0;        // after the zone filter
  StateCounts states;               // the same samples by VM state
  std::vector<SampleRecord> rows;   // by count, descending
  std::vector<LineSamples> lines;   // by path, then line, then zone
  std::vector<OffTraceStack> offTraceStacks;  // bounded as the stacks are; not written
  std::string zoneFilter;           // the zone prefix applied ("" = none)
  std::string rootModule;           // the root module applied ("" = none)

  // Collapsed stacks ("a;b;c 12"), one line per distinct stack across zones,
  // by count descending, then stack; the flamegraph.pl / speedscope format.
  std::string collapsedText() const;
  // Distinct stacks in collapsedText().
  std::size_t stackCount() const;
  // The process CPU time the session sampled (not paused), and the samples
  // taken in it before the zone filter. The profiler's timer counts CPU time
  // in the kernel's ticks: asked for 1 ms, it fires every 4 ms on a 250 Hz
  // kernel, so a sample stands for the CPU time per sample taken, not for
  // the interval asked for.
  double cpuMs = 0;
  std::uint64_t samplesTaken = 0;
  double msPerSample() const {
    return samplesTaken > 0 && cpuMs > 0 ? cpuMs / static_cast<double>(samplesTaken) : intervalMs;
  }
  double millisecondsOf(std::uint64_t sampleCount) const { return static_cast<double>(sampleCount) * msPerSample(); }
};

// speedscope's JSON file format: one sampled profile per VM state that has
// samples, over one shared frame table (weights in milliseconds).
std::string toSpeedscopeJson(const SampleReport& report, const std::string& name);

}  // namespace ljcheck
