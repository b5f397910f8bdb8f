# Warnings as errors for ljcheck's own code; third-party targets opt out.
add_library(ljcheck_warnings INTERFACE)
target_compile_options(ljcheck_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Werror
  # GCC 12 reports false positives inside nlohmann/json and libstdc++ at -O2
  # (clang, used by the fuzz build, knows no such warning).
  $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized>)
