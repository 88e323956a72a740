#include "SshTarget.h"

#include <cctype>
#include <charconv>

namespace vs {

namespace {
constexpr const char* kScheme = "ssh://";

bool nameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

// A user or host name ssh cannot mistake for an option, and that needs no quoting.
bool safeName(const std::string& s, bool host) {
    if (s.empty() || s.front() == '-') return false;
    for (char c : s)
        if (!nameChar(c) && !(host && c == ':')) return false; // ':' only inside an IPv6 [address]
    return true;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// %XX decoding (a browser or a file manager writes spaces as %20); false on a bad escape.
bool percentDecode(const std::string& in, std::string& out) {
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out += in[i];
            continue;
        }
        if (i + 2 >= in.size()) return false;
        const int hi = hexValue(in[i + 1]), lo = hexValue(in[i + 2]);
        if (hi < 0 || lo < 0) return false;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return true;
}

// "[user@]host[:port]" into `t`; false with `error`.
bool parseAuthority(const std::string& authority, SshTarget& t, std::string& error) {
    std::string rest = authority;
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
        t.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
        if (!safeName(t.user, false))
            return error = "the user name '" + t.user + "' is not a plain name", false;
    }
    std::string port;
    if (!rest.empty() && rest.front() == '[') { // [IPv6]:port
        const size_t close = rest.find(']');
        if (close == std::string::npos) return error = "an IPv6 address needs its closing ']'", false;
        t.host = rest.substr(1, close - 1);
        if (close + 1 < rest.size()) {
            if (rest[close + 1] != ':') return error = "unexpected text after ']'", false;
            port = rest.substr(close + 2);
        }
    } else {
        const size_t colon = rest.find(':');
        t.host = rest.substr(0, colon);
        if (colon != std::string::npos) port = rest.substr(colon + 1);
        if (t.host.find(':') != std::string::npos) return error = "write an IPv6 address as [address]", false;
    }
    if (!safeName(t.host, true)) return error = "the host name '" + t.host + "' is not a plain name", false;
    if (!port.empty() || authority.back() == ':') {
        const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), t.port);
        if (ec != std::errc() || end != port.data() + port.size() || t.port < 1 || t.port > 65535)
            return error = "the port '" + port + "' is not a number from 1 to 65535", false;
    }
    return true;
}

bool pathIsSafe(const std::string& path) {
    for (char c : path)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
    return true;
}
} // namespace

bool isSshUrl(const std::string& text) {
    return text.rfind(kScheme, 0) == 0;
}

std::optional<SshTarget> parseSshHost(const std::string& text, std::string& error) {
    std::string authority = isSshUrl(text) ? text.substr(6) : text;
    if (!authority.empty() && authority.back() == '/') authority.pop_back();
    if (authority.empty()) return error = "no host given", std::nullopt;
    SshTarget t;
    if (!parseAuthority(authority, t, error)) return std::nullopt;
    return t;
}

std::optional<SshTarget> parseSshUrl(const std::string& url, std::string& error) {
    if (!isSshUrl(url)) return error = "not an ssh:// address: " + url, std::nullopt;
    const std::string rest = url.substr(6);
    const size_t slash = rest.find('/');
    if (slash == std::string::npos || slash + 1 >= rest.size())
        return error = "no file path after the host in " + url + " (ssh://host/path/run.vscap)", std::nullopt;
    SshTarget t;
    if (slash == 0) return error = "no host in " + url, std::nullopt;
    if (!parseAuthority(rest.substr(0, slash), t, error)) return std::nullopt;
    if (!percentDecode(rest.substr(slash), t.path)) return error = "a bad %-escape in " + url, std::nullopt;
    if (t.path.rfind("/~/", 0) == 0) t.path = t.path.substr(1); // ~/x: in the remote home
    if (!pathIsSafe(t.path) || t.path == "~/")
        return error = "the remote path in " + url + " is not a file name", std::nullopt;
    return t;
}

std::string SshTarget::url() const {
    std::string out = kScheme;
    if (!user.empty()) out.append(user).append("@");
    const bool v6 = host.find(':') != std::string::npos;
    out.append(v6 ? "[" : "").append(host).append(v6 ? "]" : "");
    if (port) out.append(":").append(std::to_string(port));
    if (path.rfind("~/", 0) == 0) out += '/';
    static const char* hex = "0123456789ABCDEF";
    for (char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || c == '%' || u >= 0x7f) {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 15];
        } else
            out += c;
    }
    return out;
}

} // namespace vs
