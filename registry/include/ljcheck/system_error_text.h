// The text of a system error (errno) as ljcheck's messages read it:
// "no such file or directory", lower case after the colon that leads to it.
#pragma once

#include <string>

namespace ljcheck {

std::string systemErrorText(int code);

}  // namespace ljcheck
