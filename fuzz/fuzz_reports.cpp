// libFuzzer harness for the JSON report readers that `ljcheck verify` takes as
// input: verify/src/read_report.cpp and, through it, ReportEnvelope::read. The
// input is read as a lint report and as a runtime report; whichever reads is
// joined (verify) and written as text and JSON, as `ljcheck verify` would.
// ReportError is the documented answer to a bad report; anything else
// escaping, and every crash, leak or undefined behaviour, is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <streambuf>
#include <string>

#include "ljcheck/verify.h"

namespace {

// readReport reads a path: each input goes to one in-memory file, made once.
int inputFd = -1;
std::string inputPath;

// Discards what the writers write.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void writeInput(const std::uint8_t* data, std::size_t size) {
  if (ftruncate(inputFd, 0) != 0 || pwrite(inputFd, data, size, 0) != static_cast<ssize_t>(size)) {
    std::perror("fuzz_reports: writing the input file");
    std::abort();
  }
}

void joinAndWrite(const ljcheck::SiteReport& lint, const std::vector<ljcheck::SiteReport>& runs) {
  ljcheck::VerifyOptions options;
  options.allowProfileMismatch = true;
  options.includeBenign = true;
  ljcheck::Verification v = ljcheck::verify(lint, runs, options);
  NullBuffer buffer;
  std::ostream out(&buffer);
  ljcheck::writeVerificationText(out, v);
  ljcheck::writeVerificationJson(out, v);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  inputFd = memfd_create("ljcheck-fuzz-report", 0);
  if (inputFd < 0) {
    std::perror("fuzz_reports: memfd_create");
    std::abort();
  }
  inputPath = "/proc/self/fd/" + std::to_string(inputFd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  writeInput(data, size);
  try {
    ljcheck::SiteReport lint = ljcheck::readReport(inputPath, "lint");
    joinAndWrite(lint, {});
  } catch (const ljcheck::ReportError&) {
  }
  try {
    ljcheck::SiteReport run = ljcheck::readReport(inputPath, "runtime");
    // A lint report with no predictions under the same envelope: every observation is missed.
    ljcheck::SiteReport lint;
    lint.envelope = run.envelope;
    lint.envelope.kind = "lint";
    joinAndWrite(lint, {run});
  } catch (const ljcheck::ReportError&) {
  }
  return 0;
}
