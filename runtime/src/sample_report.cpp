// The sample report model: VM states, collapsed-stack text (see sample_report.h).
#include <algorithm>
#include <map>

#include "ljcheck/sample_report.h"

namespace ljcheck {

const char* fieldName(VmState state) {
  switch (state) {
    case VmState::Compiled: return "compiled";
    case VmState::Interpreted: return "interpreted";
    case VmState::CCode: return "cCode";
    case VmState::Collecting: return "collecting";
    case VmState::Compiling: return "compiling";
  }
  return "compiling";
}

VmState vmStateFromLetter(int letter) {
  switch (letter) {
    case 'N': return VmState::Compiled;
    case 'I': return VmState::Interpreted;
    case 'C': return VmState::CCode;
    case 'G': return VmState::Collecting;
    default: return VmState::Compiling;  // 'J'
  }
}

std::uint64_t StateCounts::total() const {
  std::uint64_t sum = 0;
  for (std::uint64_t c : counts) sum += c;
  return sum;
}

StateCounts& StateCounts::operator+=(const StateCounts& other) {
  for (int i = 0; i < kVmStateCount; ++i) counts[i] += other.counts[i];
  return *this;
}

// The collapsed format separates frames with ';' and stacks with line
// breaks: a chunk name holding either (a path with ';', loadstring's
// "=chunk\nname") is written with them as %3B, %0A and %0D, which
// `ljcheck report --stacks` reads back.
void appendCollapsedFrame(std::string& out, const std::string& frame) {
  for (char c : frame) {
    if (c == ';') out += "%3B";
    else if (c == '\n') out += "%0A";
    else if (c == '\r') out += "%0D";
    else out += c;
  }
}

std::string SampleRecord::stack() const {
  std::string out;
  for (const std::string& frame : frames) {
    if (!out.empty()) out += ';';
    appendCollapsedFrame(out, frame);
  }
  return out;
}

namespace {

// Distinct stacks across zones with their counts, by count descending, then stack.
std::vector<std::pair<std::string, std::uint64_t>> stacksByCount(const SampleReport& report) {
  std::map<std::string, std::uint64_t> merged;
  for (const SampleRecord& row : report.rows) merged[row.stack()] += row.count();
  std::vector<std::pair<std::string, std::uint64_t>> out(merged.begin(), merged.end());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

}  // namespace

std::string SampleReport::collapsedText() const {
  std::string out;
  for (const auto& [stack, count] : stacksByCount(*this))
    out += (stack.empty() ? std::string("(no Lua stack)") : stack) + " " + std::to_string(count) + "\n";
  return out;
}

std::size_t SampleReport::stackCount() const { return stacksByCount(*this).size(); }

}  // namespace ljcheck
