// libFuzzer harness for the Lua source front end, end to end as `ljcheck lint`
// runs it on one file: compile with the embedded LuaJIT, dump, read the dump,
// run the rules, then map columns and apply `-- ljcheck: allow(...)`
// suppressions (analyzeSource). An input that starts with ESC is read as a
// bytecode dump, as lint does, so forged dumps reach the rules too. Syntax
// and input errors come back as FileErrors, never as exceptions: any
// exception escaping, and every crash, leak or undefined behaviour, is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ljcheck/analyzer.h"
#include "ljcheck/profile.h"

namespace {

const ljcheck::RecorderProfile* profile = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Loaded once: parsing a profile per input would dominate the run.
  profile = &ljcheck::defaultProfile();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  // Possible: every rule reports, so the column and suppression passes see the most predictions.
  ljcheck::FileResult result =
      ljcheck::analyzeSource(source, "fuzz/input.lua", *profile, ljcheck::Confidence::Possible);
  (void)result;
  return 0;
}
