// A data file compiled into a library (see cmake/EmbedFiles.cmake).
#pragma once

namespace ljcheck {

struct EmbeddedFile {
  const char* name;
  const char* contents;
};

}  // namespace ljcheck
