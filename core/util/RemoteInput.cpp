#include "RemoteInput.h"

namespace vs {

namespace {
// Each byte as \ooo: digits and backslashes only, inert in every shell and one line whatever it holds.
void appendEncoded(std::string& out, std::string_view value) {
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        out += '\\';
        out += char('0' + (u >> 6));
        out += char('0' + ((u >> 3) & 7));
        out += char('0' + (u & 7));
    }
    out += '\n';
}
} // namespace

std::string remoteInput(const RemoteScript& command) {
    if (command.script.find('\n') != std::string::npos)
        throw std::logic_error("a remote script is one line"); // read -r reads one
    size_t total = 0;
    for (const auto& v : command.values) {
        if (v.find('\0') != std::string::npos)
            throw RemoteValueError("a NUL byte cannot be sent to the host");
        total += v.size();
    }
    if (total > kMaxValueBytes)
        throw RemoteValueError("the paths and words sent to the host are longer than 256 KiB together");
    std::string out = command.script + '\n';
    out.reserve(out.size() + total * 4 + command.values.size());
    for (const auto& v : command.values) appendEncoded(out, v);
    return out;
}

} // namespace vs
