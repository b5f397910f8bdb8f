// The C declarations of a file's ffi.cdef strings, as far as the FFI rules
// need them: how each declared function passes its arguments and result
// (a scalar, or a struct/union/complex by value, which the recorder refuses),
// and the size of a ctype (initializers over 128 bytes are not compiled).
//
// A small parser for the C subset LuaJIT's own lj_cparse accepts, not a C
// compiler: libclang costs about 20 ms per translation unit even for a
// three-line cdef, which would add more than the 20% lint-throughput budget
// on a corpus with cdefs in 4% of its files, and it rejects LuaJIT's
// variable-length `[?]`. Anything it cannot follow (a typedef from another
// file, a bit field, packing) stays Unknown and yields no prediction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ljcheck::flow {

// How a value of a C type crosses an FFI call (lj_crecord.c: crec_call).
enum class CPass { Scalar, Aggregate, Complex, Void, Unknown };

// What a C type is, as lj_crecord.c's crec_alloc tells them apart when it
// initializes one: the scalars it converts one by one (numbers, pointers,
// enums), arrays (element by element), and structs and unions (member by
// member). Unknown: a complex number, void, or a name not declared here.
enum class CShape : std::uint8_t { Unknown, Number, Pointer, Enum, Array, Record };

struct CType {
  CPass pass = CPass::Unknown;
  std::size_t size = 0;   // bytes; 0 when unknown
  std::size_t align = 0;
  bool variableLength = false;  // a VLA (int[?]) or a struct ending in one
  std::string spelling;         // as declared, for messages
  CShape shape = CShape::Unknown;
  // An Array: its element's shape and size.
  CShape elementShape = CShape::Unknown;
  std::size_t elementSize = 0;
  // A Record: a union; whether every member's shape is known; and the
  // first named member crec_alloc cannot initialize, one that is no
  // number, pointer or enum ("name (char[16])", "the bit field flags"),
  // empty when there is none.
  bool isUnion = false;
  bool membersKnown = false;
  std::string uninitializableMember;
};

struct CFunction {
  std::string name;
  CType result;
  std::vector<CType> params;
  bool vararg = false;
};

class CDeclarations {
 public:
  // Adds the declarations of one cdef string; a declaration that does not
  // parse is skipped, the others are kept.
  void add(std::string_view cdef);
  const CFunction* function(std::string_view name) const;
  // An abstract type as ffi.new/ffi.typeof take it: "int[64]", "point_t",
  // "struct foo[?]". Unknown when it names something not declared here.
  CType typeOf(std::string_view ctype) const;
  bool empty() const { return functions_.empty() && typedefs_.empty() && tags_.empty(); }

 private:
  friend class CParser;
  std::map<std::string, CFunction, std::less<>> functions_;
  std::map<std::string, CType, std::less<>> typedefs_;
  std::map<std::string, CType, std::less<>> tags_;  // "struct foo", "union bar", "enum baz"
};

// True when parsing the ctype string would create a new struct, union or
// enum definition ("struct { int a; }"): lj_crecord.c argv2ctype refuses it.
bool definesNewType(std::string_view ctype);

}  // namespace ljcheck::flow
