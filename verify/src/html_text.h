// Text escaping shared by the report writers (private to verify/).
#pragma once

#include <string>
#include <string_view>

namespace ljcheck {

// For HTML text and attribute values: & < > " ' escaped.
inline std::string htmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// For a Markdown table cell or inline text: no line breaks, pipes and
// markup characters escaped, HTML tags neutralised.
inline std::string markdownEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r') out += ' ';
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '|' || c == '\\' || c == '`' || c == '*' || c == '_' || c == '[' || c == ']') {
      out += '\\';
      out += c;
    } else out += c;
  }
  return out;
}

}  // namespace ljcheck
