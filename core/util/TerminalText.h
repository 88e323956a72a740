#pragma once
// Text from a file, made safe to print on a terminal line: control characters (a newline that would
// forge a line, an escape sequence that would reach the terminal, C1 controls) are shown as \xNN
// instead of being written.
#include <string>
#include <string_view>

namespace vs {

std::string terminalText(std::string_view s);

// A program's output passed on as it arrives, in pieces: the same, but its lines and tabs kept.
// `carry` holds a piece's last byte when it may start a C1 control that the next piece ends.
std::string terminalOutput(std::string_view s, std::string& carry);

} // namespace vs
