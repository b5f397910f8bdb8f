// The recorder profile id: readable fields joined with short digests of the
// lists that shift between builds (bytecodes, fast functions, trace errors).
#include <cstdint>
#include <cstdio>
#include <string>

#include "ljcheck/profile.h"

namespace ljcheck {
namespace {

// FNV-1a, 32 bits, over the items joined by '\n'. Stable and easy to
// recompute anywhere; collisions only matter between builds of one version.
std::string digest(const std::vector<std::string>& items) {
  std::uint32_t h = 2166136261u;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 16777619u;
  };
  for (const auto& item : items) {
    for (unsigned char c : item) mix(c);
    mix('\n');
  }
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}

std::string slug(std::string text) {
  for (char& c : text)
    if (c == ' ' || c == '/') c = '-';
  return text;
}

}  // namespace

std::string computeProfileId(const ProfileFacts& f) {
  return slug(f.version) + "/" + slug(f.arch) + "/" + slug(f.os) + "/jit-" + digest(f.jitFlags) +
         "/bc-" + digest(f.bytecodeNames) + "/ff-" + digest(f.fastFunctionNames) + "/te-" +
         digest(f.traceErrorMessages);
}

}  // namespace ljcheck
