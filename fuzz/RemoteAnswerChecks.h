#pragma once
// Fuzzing what a remote host answers (util/RemoteAnswer.h) and what is sent to it
// (util/RemoteInput.h): a hostile host's text must be refused or read as exactly what it says, and a
// user's value must reach the host as one line of octal escapes that gives the value back. The
// first byte picks the parser, the rest is the host's text (or the values). A broken property traps,
// which the fuzzer reports as a crash.
#include "FuzzBytes.h"
#include "util/RemoteAnswer.h"
#include "util/RemoteInput.h"

#include <cctype>
#include <string>
#include <string_view>

namespace vs::fuzz {

namespace remote {

inline void require(bool ok) {
    if (!ok) __builtin_trap();
}

// A size: digits only, at most `max`, and the number the digits say.
inline void size(std::string_view text, uint64_t max) {
    const auto v = parseRemoteSize(text, max);
    if (!v) return;
    require(*v <= max && !text.empty());
    uint64_t again = 0;
    for (char c : text) {
        require(c >= '0' && c <= '9');
        again = again * 10 + uint64_t(c - '0');
    }
    require(again == *v);
}

// A directory: absolute, plain characters, no "." or ".." or empty component, room for /live.sock.
inline void dir(std::string_view text) {
    if (!isPlainRemoteDir(text)) return;
    require(text.size() + 10 <= 107 && text.front() == '/' && text.back() != '/');
    require(text.find("//") == std::string_view::npos && text.find("/./") == std::string_view::npos);
    require(text.find("/../") == std::string_view::npos);
    const std::string_view last = text.substr(text.rfind('/') + 1);
    require(last != "." && last != "..");
    for (char c : text)
        require(std::string_view("-./_").find(c) != std::string_view::npos || std::isalnum(uint8_t(c)));
}

// A process id or status: what the digits say, within 0..max.
inline void number(std::string_view text, long max) {
    const auto v = parseRemoteNumber(text, max);
    if (v) require(*v >= 0 && *v <= max && parseRemoteSize(text, uint64_t(max)) == uint64_t(*v));
}

// Hex: the bytes it decodes to print back as the same lower-case hex.
inline void hex(std::string_view text) {
    const auto bytes = decodeRemoteHex(text, 64);
    if (!bytes) return;
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string again;
    for (unsigned char c : *bytes) again += kDigits[c >> 4], again += kDigits[c & 15];
    require(again == text && bytes->size() <= 64);
}

// Values sent to the host: the script's line, then one line per value of \ooo escapes only (what
// kReadValue accepts), each decoding to the value.
inline void input(std::string_view text) {
    RemoteScript command{"val; echo \"$v\"", {}};
    for (size_t at = 0; at <= text.size();) { // values split at 0xff bytes
        const size_t end = std::min(text.find('\xff', at), text.size());
        command.values.emplace_back(text.substr(at, end - at));
        at = end + 1;
    }
    std::string out;
    try {
        out = remoteInput(command);
    } catch (const RemoteValueError&) {
        return require(text.find('\0') != std::string_view::npos);
    }
    size_t at = out.find('\n') + 1;
    require(out.substr(0, at) == command.script + "\n");
    for (const auto& value : command.values) {
        const size_t end = out.find('\n', at);
        require(end != std::string::npos && (end - at) == 4 * value.size());
        for (size_t i = 0; i < value.size(); ++i) {
            const char* e = out.data() + at + 4 * i;
            require(e[0] == '\\' && e[1] >= '0' && e[1] <= '3' && e[2] >= '0' && e[2] <= '7' && e[3] >= '0' &&
                    e[3] <= '7');
            require(char((e[1] - '0') * 64 + (e[2] - '0') * 8 + (e[3] - '0')) == value[i]);
        }
        at = end + 1;
    }
    require(at == out.size());
}

} // namespace remote

inline void checkRemoteAnswer(const uint8_t* data, size_t size) {
    if (size == 0) return;
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    static constexpr uint64_t kMax[] = {0, 10, 1ull << 30, uint64_t(INT64_MAX), UINT64_MAX};
    switch (data[0] % 5) {
    case 0:
        return remote::size(text, kMax[(data[0] / 5) % 5]);
    case 1:
        return remote::number(text, long(kMax[(data[0] / 5) % 4]));
    case 2:
        return remote::dir(text);
    case 3:
        return remote::hex(text);
    default:
        return remote::input(text);
    }
}

} // namespace vs::fuzz
