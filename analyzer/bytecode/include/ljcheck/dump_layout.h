// Where the parts of a read dump lie in its bytes (lj_bcwrite.c), for the
// language server, which splices the prototypes of one recompiled function
// into the last dump of a document (function_splice.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ljcheck/dump_reread.h"

namespace ljcheck::bytecode {

// The bytes of the prototypes `first`..`last` (consecutive indices) of
// `read`, each with its length prefix.
std::string_view prototypeRun(const DumpRereader::LastRead& read, std::size_t first, std::size_t last);

// The offset, within the bytes of one prototype (a span of
// LastRead::spans), of its upvalue refs: two bytes each, in the dump's
// byte order, after the header and the instructions (bcwrite_proto).
std::size_t upvalueRefsAt(std::string_view prototype, bool stripped);

// Sets or clears PROTO_UV_IMMUTABLE (lj_obj.h) in the upvalue ref whose two
// bytes start at bytes[ref].
void setUpvalueImmutable(std::string& bytes, std::size_t ref, bool immutable, bool bigEndian);

}  // namespace ljcheck::bytecode
