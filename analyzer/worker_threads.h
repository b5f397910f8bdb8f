// Work shared out over a few threads: the files of a lint batch, the
// predictions of a report.
#pragma once

#include <cstddef>
#include <functional>

namespace ljcheck {

// Runs `worker` on `jobs` threads, or on `count` when that is fewer, and on
// this thread alone when that is one (unless the heaps are on huge pages:
// then on one new thread, huge_page_heaps.h). The workers share out the `count`
// items among themselves (an atomic counter each takes the next item from)
// and return when none is left.
void onThreads(unsigned jobs, std::size_t count, const std::function<void()>& worker);

// Calls `work(k)` for every k below `count` on at most `jobs` threads, each
// thread taking the next k when done with its last.
void forEachOnThreads(unsigned jobs, std::size_t count, const std::function<void(std::size_t)>& work);

}  // namespace ljcheck
