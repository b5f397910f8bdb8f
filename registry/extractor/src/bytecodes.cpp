// The bytecode list: BCDEF(_) in lj_bc.h names every opcode in order with
// the modes of its A, B and C/D operands and its metamethod.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

// lj_bc.h spells "no operand" and "no metamethod" as ___.
std::string mode(const std::string& spelled) { return spelled == "___" ? "none" : spelled; }

}  // namespace

std::vector<BytecodeDef> scanBytecodes(const SourceTree& tree) {
  const std::string header = "lj_bc.h";
  tree.require(header);
  const std::string code =
      "#include \"lj_bc.h\"\n"
      "#define LJCHECK_BC(name, ma, mb, mc, mm) "
      "static const char *const ljcheck_bc_##name[] = {#name, #ma, #mb, #mc, #mm};\n"
      "BCDEF(LJCHECK_BC)\n";
  TranslationUnit unit = TranslationUnit::parseCode(tree, "ljcheck_bc_wrapper.c", code, header);
  std::vector<BytecodeDef> bytecodes;
  for (CXCursor row : unit.variables("ljcheck_bc_")) {
    std::vector<std::string> fields;
    for (CXCursor item : initializerItems(row))
      if (auto text = evaluateString(item)) fields.push_back(*text);
    if (fields.size() != 5)
      throw ExtractError(header, "BCDEF row " + std::to_string(bytecodes.size()) +
                                     " is not (name, A mode, B mode, C/D mode, metamethod)");
    bytecodes.push_back({fields[0], mode(fields[1]), mode(fields[2]), mode(fields[3]), mode(fields[4])});
  }
  if (bytecodes.empty()) throw ExtractError(header, "no BCDEF(_) bytecode list found");
  return bytecodes;
}

}  // namespace ljcheck::extractor
