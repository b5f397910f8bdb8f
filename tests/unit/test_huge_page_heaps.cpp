// Lint's worker heaps on transparent huge pages (huge_page_heaps.h): checked
// in the kernel's own account of the mapping, /proc/self/smaps.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ljcheck/huge_page_heaps.h"
#include "worker_threads.h"

namespace {

// The kernel gives huge pages on request unless THP is "never" (or absent).
bool kernelOffersHugePages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(in, modes) && modes.find("[never]") == std::string::npos;
}

// The value of field `field` ("AnonHugePages:", "VmFlags:") in the
// /proc/self/smaps entry of the mapping holding `address`; empty when none
// holds it.
std::string smapsFieldAt(std::uintptr_t address, const std::string& field) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t from = 0, to = 0;
    char dash = 0;
    std::istringstream head(line);
    if (line.find(':') == std::string::npos || line.find(' ') < line.find(':')) {
      if (head >> std::hex >> from >> dash >> to && dash == '-') inside = address >= from && address < to;
      continue;
    }
    if (inside && line.rfind(field, 0) == 0) return line.substr(field.size());
  }
  return {};
}

}  // namespace

TEST_CASE("huge pages: a lint worker's heap is backed by 2 MiB pages", "[lint][memory]") {
  if (!ljcheck::glibcMalloc() || !kernelOffersHugePages()) {
    WARN("not checked: " << (!ljcheck::glibcMalloc() ? "not glibc's malloc (a sanitizer's)" : "the kernel's THP is off"));
    ljcheck::useHugePageHeaps();
    CHECK(ljcheck::hugePageHeapsInUse() == ljcheck::glibcMalloc());  // another malloc: nothing is done
    return;
  }
  ljcheck::useHugePageHeaps();
  REQUIRE(ljcheck::hugePageHeapsInUse());
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ranOn;
  std::vector<std::unique_ptr<char[]>> blocks;
  ljcheck::onThreads(1, 1, [&] {
    ranOn = std::this_thread::get_id();
    for (int i = 0; i < 256; ++i) {  // 16 MiB in blocks malloc serves from the heap (below its mmap threshold)
      blocks.emplace_back(new char[64 * 1024]);
      std::memset(blocks.back().get(), i, 64 * 1024);
    }
  });
  CHECK(ranOn != caller);  // -j 1 runs on a thread of its own, whose heap was advised
  const auto middle = reinterpret_cast<std::uintptr_t>(blocks[128].get());
  // What lint does is ask (madvise MADV_HUGEPAGE: "hg" among the mapping's
  // VmFlags); whether the kernel finds free 2 MiB pages at that moment
  // depends on the machine's memory (a busy CI host may have none), so the
  // pages themselves are reported, not required.
  const std::string flags = smapsFieldAt(middle, "VmFlags:");
  INFO("VmFlags of the worker's heap:" << flags);
  CHECK(flags.find(" hg") != std::string::npos);
  const std::string pages = smapsFieldAt(middle, "AnonHugePages:");
  if (pages.empty() || std::stol(pages) < 2048)
    WARN("the kernel gave no huge page to the worker's heap just now:" << pages);
}

TEST_CASE("huge pages are asked for only with LJCHECK_HUGE_PAGES=1", "[lint][memory]") {
  const char* before = std::getenv("LJCHECK_HUGE_PAGES");
  const std::string saved = before ? before : "";
  ::unsetenv("LJCHECK_HUGE_PAGES");
  CHECK_FALSE(ljcheck::hugePageHeapsRequested());
  ::setenv("LJCHECK_HUGE_PAGES", "0", 1);
  CHECK_FALSE(ljcheck::hugePageHeapsRequested());
  ::setenv("LJCHECK_HUGE_PAGES", "1", 1);
  CHECK(ljcheck::hugePageHeapsRequested());
  if (before) ::setenv("LJCHECK_HUGE_PAGES", saved.c_str(), 1);
  else ::unsetenv("LJCHECK_HUGE_PAGES");
}
