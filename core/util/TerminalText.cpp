#include "util/TerminalText.h"

#include <cstdio>

namespace vs {

std::string terminalText(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        const auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
        const bool c1 = c == 0xc2 && next >= 0x80 && next <= 0x9f; // U+0080..U+009F in UTF-8
        if (c >= 0x20 && c != 0x7f && !c1) {
            out += char(c);
            continue;
        }
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c1 ? next : c);
        out += hex;
        i += c1 ? 1 : 0;
    }
    return out;
}

} // namespace vs
