// Which build this is: the version strings of luajit.h, whether it is
// OpenResty's fork, and the target's jit.arch, jit.os and GC64 mode from
// lj_arch.h as the parser's (host) target selects them.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

std::string stringOf(const TranslationUnit& unit, const std::string& var, const std::string& file,
                     const std::string& macro) {
  auto c = unit.variable(var);
  std::optional<std::string> text = c ? evaluateString(*c) : std::nullopt;
  if (!text) throw ExtractError(file, "no " + macro + " string defined");
  return *text;
}

std::int64_t intOf(const TranslationUnit& unit, const std::string& var, const std::string& file,
                   const std::string& macro) {
  auto c = unit.variable(var);
  std::optional<std::int64_t> value = c ? evaluateInt(*c) : std::nullopt;
  if (!value) throw ExtractError(file, "no " + macro + " number defined");
  return *value;
}

}  // namespace

BuildIdentity scanBuildIdentity(const SourceTree& tree) {
  tree.require("luajit.h");
  tree.require("lj_arch.h");
  const std::string code =
      "#include \"luajit.h\"\n"
      "#include \"lj_arch.h\"\n"
      "static const char *const ljcheck_version = LUAJIT_VERSION;\n"
      "static const long long ljcheck_version_num = LUAJIT_VERSION_NUM;\n"
      "#ifdef OPENRESTY_LUAJIT\n"
      "static const int ljcheck_openresty = 1;\n"
      "#else\n"
      "static const int ljcheck_openresty = 0;\n"
      "#endif\n"
      "static const char *const ljcheck_arch = LJ_ARCH_NAME;\n"
      "static const char *const ljcheck_os = LJ_OS_NAME;\n"
      "static const int ljcheck_gc64 = LJ_GC64;\n";
  TranslationUnit unit = TranslationUnit::parseCode(tree, "ljcheck_version_wrapper.c", code, "luajit.h");
  BuildIdentity id;
  id.version = stringOf(unit, "ljcheck_version", "luajit.h", "LUAJIT_VERSION");
  id.versionNum = intOf(unit, "ljcheck_version_num", "luajit.h", "LUAJIT_VERSION_NUM");
  id.openresty = intOf(unit, "ljcheck_openresty", "luajit.h", "OPENRESTY_LUAJIT") != 0;
  id.arch = stringOf(unit, "ljcheck_arch", "lj_arch.h", "LJ_ARCH_NAME");
  id.os = stringOf(unit, "ljcheck_os", "lj_arch.h", "LJ_OS_NAME");
  id.gc64 = intOf(unit, "ljcheck_gc64", "lj_arch.h", "LJ_GC64") != 0;
  return id;
}

}  // namespace ljcheck::extractor
