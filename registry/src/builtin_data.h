// The registry's data files, compiled in by cmake/EmbedFiles.cmake.
#pragma once

#include "ljcheck/embedded_file.h"

namespace ljcheck {
extern const EmbeddedFile kCatalogFiles[];
extern const EmbeddedFile kProfileFiles[];
}  // namespace ljcheck
