# Sanitizer and fuzzing instrumentation for every target defined after this
# file is included. LJCHECK_SANITIZE=address also enables UndefinedBehavior-
# Sanitizer; thread is ThreadSanitizer. LJCHECK_FUZZ (clang only) builds the
# libraries with libFuzzer's coverage plus ASan and UBSan, and the harnesses in
# fuzz/ link libFuzzer itself (fuzz/CMakeLists.txt). LJCHECK_FUZZ_SANITIZERS=OFF
# keeps libFuzzer's coverage and drops ASan and UBSan: the fast build a long
# campaign runs, whose corpus is then replayed under the sanitized build
# (scripts/fuzz_campaign.sh, docs/fuzzing.md).
if(LJCHECK_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LJCHECK_FUZZ needs clang (libFuzzer): configure with CC=clang-14 CXX=clang++-14")
  endif()
  if(LJCHECK_SANITIZE)
    message(FATAL_ERROR "LJCHECK_FUZZ brings its own sanitizers: leave LJCHECK_SANITIZE empty")
  endif()
  if(LJCHECK_FUZZ_SANITIZERS)
    add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
  else()
    add_compile_options(-fsanitize=fuzzer-no-link -fno-omit-frame-pointer)
  endif()
elseif(LJCHECK_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(LJCHECK_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(LJCHECK_SANITIZE)
  message(FATAL_ERROR "LJCHECK_SANITIZE must be address, thread or empty, not '${LJCHECK_SANITIZE}'")
endif()
