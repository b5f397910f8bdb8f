// Parses string.format specifiers (see format_spec.h).
#include "rules/format_spec.h"

namespace ljcheck::rules {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

FormatSpec::Type typeOf(char c) {
  switch (c) {
    case 'd': case 'i': return FormatSpec::Type::Int;
    case 'o': case 'u': case 'x': case 'X': return FormatSpec::Type::Uint;
    case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': return FormatSpec::Type::Num;
    case 's': case 'q': return FormatSpec::Type::Str;
    case 'c': return FormatSpec::Type::Char;
    case 'p': return FormatSpec::Type::Ptr;
    default: return FormatSpec::Type::Error;
  }
}

}  // namespace

std::vector<FormatSpec> parseFormat(std::string_view format) {
  std::vector<FormatSpec> specs;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (i + 1 < format.size() && format[i + 1] == '%') {
      ++i;
      continue;
    }
    std::size_t start = i++;
    while (i < format.size() && (format[i] == '-' || format[i] == '+' || format[i] == ' ' || format[i] == '#' ||
                                 format[i] == '0'))
      ++i;
    for (int d = 0; d < 2 && i < format.size() && isDigit(format[i]); ++d) ++i;
    if (i < format.size() && format[i] == '.') {
      ++i;
      for (int d = 0; d < 2 && i < format.size() && isDigit(format[i]); ++d) ++i;
    }
    FormatSpec spec;
    spec.conversion = i < format.size() ? format[i] : '\0';
    spec.type = typeOf(spec.conversion);
    spec.text = format.substr(start, i + 1 - start);
    specs.push_back(spec);
    if (spec.type == FormatSpec::Type::Error) break;
  }
  return specs;
}

}  // namespace ljcheck::rules
