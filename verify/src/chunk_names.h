// Which runtime locations name files. Code loaded from a string shows as
// [string "..."], code under a made-up chunk name as "=stdin" or
// "=products.html" (runtime/src/location.cpp): no file a prediction or a
// source line could come from.
#pragma once

#include <string>

namespace ljcheck {

inline bool fromLoadedChunk(const std::string& path) { return !path.empty() && (path[0] == '[' || path[0] == '='); }

// A path a file can be read from or rebased; unknown (empty) locations are not.
inline bool isFilePath(const std::string& path) { return !path.empty() && !fromLoadedChunk(path); }

}  // namespace ljcheck
