// libFuzzer harness for the registry's data loaders: each input is read as a
// recorder profile (RecorderProfile::fromJson, registry/src/profile.cpp: its
// reader, id and index) and as a reason catalog (ReasonCatalog::fromJson).
// std::runtime_error is their documented answer to bad data; anything else
// escaping, and every crash, leak or undefined behaviour, is a finding.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "ljcheck/profile.h"
#include "ljcheck/reason.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ljcheck::RecorderProfile profile = ljcheck::RecorderProfile::fromJson(text);
    // What lint asks of a loaded profile.
    (void)profile.fastFunction("string.gsub");
    (void)profile.traceErrorCode("NYIBC");
    (void)profile.isLibraryTable("string");
  } catch (const std::runtime_error&) {
  }
  try {
    ljcheck::ReasonCatalog catalog = ljcheck::ReasonCatalog::fromJson(text);
    (void)catalog.find("NYIBC");
    (void)catalog.upgrade("NYIBC:FNEW", 0);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
