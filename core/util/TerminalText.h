#pragma once
// Text from a file, made safe to print on a terminal line: control characters (a newline that would
// forge a line, an escape sequence that would reach the terminal, C1 controls) are shown as \xNN
// instead of being written.
#include <string>
#include <string_view>

namespace vs {

std::string terminalText(std::string_view s);

} // namespace vs
