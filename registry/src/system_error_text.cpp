// System error texts for messages (see system_error_text.h).
#include "ljcheck/system_error_text.h"

#include <cctype>
#include <cstring>

namespace ljcheck {

std::string systemErrorText(int code) {
  std::string text = std::strerror(code);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace ljcheck
