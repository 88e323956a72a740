#include "util/DisplayText.h"

#include "util/Format.h"

namespace vs {

std::string_view cutAtCharacter(std::string_view s, size_t max) {
    if (s.size() <= max) return s;
    size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n; // s[n] continues a character
    return s.substr(0, n);
}

std::string displayText(std::string_view s, std::string_view what, size_t max) {
    if (s.size() <= max) return std::string(s);
    return std::string(cutAtCharacter(s, max)) + "\u2026 (" + humanBytes(int64_t(s.size())) + " " +
           std::string(what) + ")";
}

} // namespace vs
