// Which names a `[reasons]` entry of .ljcheck.toml or an allow comment may
// use: a reasonId (NYIBC:FNEW, STITCH:string.gsub), a code (NYIBC, STITCH)
// or a subject (FNEW, string.gsub), as the catalog and a recorder profile
// know them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ljcheck/profile.h"

namespace ljcheck {

// Nullopt when `id` names a code of the reason catalog (or an id the
// catalog maps to a newer one), a reasonId whose subject fits its code, or
// a subject alone: a bytecode or builtin of `profile` or of another profile
// ljcheck ships, or C (a plain C function). Else why not, with the closest
// name `profile` knows when one is near: "no reason, code or subject is
// called 'NYBIC' (did you mean NYIBC?)"; an id an older catalog used is
// named with today's.
struct UnknownReasonName {
  std::string why;
  std::string nearest;  // the known name to write instead; empty when none is near
};
std::optional<UnknownReasonName> unknownReasonName(std::string_view id, const RecorderProfile& profile);

}  // namespace ljcheck
