// The trace error list: lj_traceerr.h is an X-macro header of
// TREDEF(name, "message") rows; their positions are the abort codes.
#include "scans.h"

namespace ljcheck::extractor {

std::vector<TraceErrorDef> scanTraceErrors(const SourceTree& tree) {
  const std::string header = "lj_traceerr.h";
  tree.require(header);
  // Each row becomes a {name, message} array; the compiler joins and
  // unescapes the message literal for us.
  const std::string code =
      "#define TREDEF(name, msg) static const char *const ljcheck_te_##name[] = {#name, msg};\n"
      "#include \"lj_traceerr.h\"\n";
  TranslationUnit unit = TranslationUnit::parseCode(tree, "ljcheck_traceerr_wrapper.c", code, header);
  std::vector<TraceErrorDef> errors;
  for (CXCursor row : unit.variables("ljcheck_te_")) {
    const std::vector<CXCursor> items = initializerItems(row);
    std::optional<std::string> name = items.size() == 2 ? evaluateString(items[0]) : std::nullopt;
    std::optional<std::string> message = items.size() == 2 ? evaluateString(items[1]) : std::nullopt;
    if (!name || !message)
      throw ExtractError(header, "TREDEF row " + std::to_string(errors.size()) + " is not (NAME, \"message\")");
    errors.push_back({*name, *message});
  }
  if (errors.empty()) throw ExtractError(header, "no TREDEF(name, message) rows found");
  return errors;
}

}  // namespace ljcheck::extractor
