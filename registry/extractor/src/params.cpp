// JIT defaults from lj_jit.h: the trace parameters of JIT_PARAMDEF (as
// jit.opt.start knows them) and the optimization flags a fresh VM has on,
// named as jit.status() names them; and the constants of the hot counters
// and of the penalty that blacklists a trace start (lj_dispatch.h,
// lj_jit.h), which say how many runs of a loop blacklisting takes.
#include "scans.h"

namespace ljcheck::extractor {
namespace {

std::vector<JitParam> readParams(const TranslationUnit& unit) {
  std::vector<JitParam> params;
  const std::string prefix = "ljcheck_param_";
  for (CXCursor row : unit.variables(prefix)) {
    const std::string name = spelling(row).substr(prefix.size());
    std::optional<std::int64_t> value = evaluateInt(row);
    if (!value) throw ExtractError("lj_jit.h", "JIT_PARAMDEF default of " + name + " is not a constant");
    params.push_back({name, *value});
  }
  if (params.empty()) throw ExtractError("lj_jit.h", "no JIT_PARAMDEF(_) parameter list found");
  return params;
}

// JIT_F_OPTSTRING holds length-prefixed names ("\4fold\3cse..."), one per
// flag bit from JIT_F_OPT up, as lib_jit.c's flagbits_to_strings walks it.
std::vector<std::string> readFlags(const TranslationUnit& unit) {
  auto names = unit.variable("ljcheck_opt_names");
  auto first = unit.variable("ljcheck_opt_first");
  auto defaults = unit.variable("ljcheck_opt_default");
  std::optional<std::string> text = names ? evaluateString(*names) : std::nullopt;
  std::optional<std::int64_t> bit = first ? evaluateInt(*first) : std::nullopt;
  std::optional<std::int64_t> on = defaults ? evaluateInt(*defaults) : std::nullopt;
  if (!text || !bit || !on)
    throw ExtractError("lj_jit.h", "JIT_F_OPTSTRING, JIT_F_OPT or JIT_F_OPT_DEFAULT is missing or not a constant");
  std::vector<std::string> flags;
  for (std::size_t i = 0; i < text->size(); *bit <<= 1) {
    const std::size_t length = static_cast<unsigned char>((*text)[i]);
    if (length == 0 || i + 1 + length > text->size())
      throw ExtractError("lj_jit.h", "JIT_F_OPTSTRING is not a list of length-prefixed names");
    if (*on & *bit) flags.push_back(text->substr(i + 1, length));
    i += 1 + length;
  }
  return flags;
}

// The hot-counter constants, by the names the profile gives them.
const std::vector<std::pair<const char*, const char*>> kHotCounterMacros = {
    {"loopStep", "HOTCOUNT_LOOP"},         {"callStep", "HOTCOUNT_CALL"},     {"counters", "HOTCOUNT_SIZE"},
    {"penaltyMin", "PENALTY_MIN"},         {"penaltyMax", "PENALTY_MAX"},     {"penaltySlots", "PENALTY_SLOTS"},
    {"penaltyRandomBits", "PENALTY_RNDBITS"}};

std::vector<JitParam> readHotCounters(const TranslationUnit& unit) {
  std::vector<JitParam> constants;
  for (const auto& [name, macro] : kHotCounterMacros) {
    auto row = unit.variable(std::string("ljcheck_counter_") + name);
    std::optional<std::int64_t> value = row ? evaluateInt(*row) : std::nullopt;
    if (!value) throw ExtractError("lj_dispatch.h", std::string(macro) + " is missing or not a constant");
    constants.push_back({name, *value});
  }
  return constants;
}

}  // namespace

JitDefaults scanJitDefaults(const SourceTree& tree) {
  tree.require("lj_jit.h");
  tree.require("lj_dispatch.h");
  // The first JIT_PARAMDEF column is the name's length for jit.opt; skip it.
  std::string code =
      "#include \"lj_obj.h\"\n"
      "#include \"lj_jit.h\"\n"
      "#include \"lj_dispatch.h\"\n"
      "#define LJCHECK_PARAM(len, name, value) static const long long ljcheck_param_##name = (value);\n"
      "JIT_PARAMDEF(LJCHECK_PARAM)\n"
      "static const char *const ljcheck_opt_names = JIT_F_OPTSTRING;\n"
      "static const long long ljcheck_opt_first = JIT_F_OPT;\n"
      "static const long long ljcheck_opt_default = JIT_F_OPT_DEFAULT;\n";
  for (const auto& [name, macro] : kHotCounterMacros)
    code += std::string("static const long long ljcheck_counter_") + name + " = (" + macro + ");\n";
  TranslationUnit unit = TranslationUnit::parseCode(tree, "ljcheck_jit_wrapper.c", code, "lj_jit.h");
  return {readParams(unit), readFlags(unit), readHotCounters(unit)};
}

}  // namespace ljcheck::extractor
