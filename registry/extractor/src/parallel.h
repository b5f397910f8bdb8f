// Runs independent extraction steps (mostly libclang parses) on the
// machine's cores.
#pragma once

#include <functional>
#include <vector>

namespace ljcheck::extractor {

// Runs the tasks, starting none after one has failed; rethrows the exception
// of the first failing task in list order, so errors do not depend on timing.
void runParallel(const std::vector<std::function<void()>>& tasks);

}  // namespace ljcheck::extractor
