#include "util/TerminalText.h"

#include <cstdio>

namespace vs {

namespace {
// Appends `s` with its control characters as \xNN; with `keepLines`, '\n' and '\t' pass as they are.
void appendEscaped(std::string& out, std::string_view s, bool keepLines) {
    out.reserve(out.size() + s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
        const bool c1 = c == 0xc2 && next >= 0x80 && next <= 0x9f; // U+0080..U+009F in UTF-8
        if ((c >= 0x20 && c != 0x7f && !c1) || (keepLines && (c == '\n' || c == '\t'))) {
            out += char(c);
            continue;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c1 ? next : c);
        out += hex;
        i += c1 ? 1 : 0;
    }
}
} // namespace

std::string terminalText(std::string_view s) {
    std::string out;
    appendEscaped(out, s, false);
    return out;
}

std::string terminalOutput(std::string_view s, std::string& carry) {
    std::string in = carry.append(s);
    carry.clear();
    if (!in.empty() && static_cast<unsigned char>(in.back()) == 0xc2) // a C1 control may follow
        carry = in.back(), in.pop_back();
    std::string out;
    appendEscaped(out, in, true);
    return out;
}

} // namespace vs
