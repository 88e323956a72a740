#include "RemoteAnswer.h"

#include <charconv>

namespace vs {

namespace {
constexpr size_t kSocketPathMax = 107; // sun_path less its NUL
constexpr std::string_view kSocketName = "/live.sock";

bool digitsOnly(std::string_view s) {
    if (s.empty() || s.size() > 20) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}
} // namespace

std::optional<uint64_t> parseRemoteSize(std::string_view text, uint64_t max) {
    uint64_t value = 0;
    if (!digitsOnly(text)) return std::nullopt;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
    return value;
}

std::optional<long> parseRemoteNumber(std::string_view text, long max) {
    const auto value = parseRemoteSize(text, uint64_t(max));
    return value ? std::optional<long>(long(*value)) : std::nullopt;
}

bool isPlainRemoteDir(std::string_view dir) {
    if (dir.size() < 2 || dir.front() != '/' || dir.size() + kSocketName.size() > kSocketPathMax)
        return false;
    for (char c : dir) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           c == '.' || c == '_' || c == '-' || c == '/';
        if (!plain) return false;
    }
    for (size_t at = 1; at <= dir.size();) { // each component between slashes
        const size_t end = std::min(dir.find('/', at), dir.size());
        const std::string_view part = dir.substr(at, end - at);
        if (part.empty() || part == "." || part == "..") return false;
        at = end + 1;
    }
    return true;
}

std::optional<std::string> decodeRemoteHex(std::string_view hex, size_t maxBytes) {
    if (hex.size() % 2 != 0 || hex.size() / 2 > maxBytes) return std::nullopt;
    std::string out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        const int hi = hexDigit(hex[i]), lo = hexDigit(hex[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += char(hi * 16 + lo);
    }
    return out;
}

} // namespace vs
