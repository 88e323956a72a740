#include "SshFailure.h"

#include "TerminalText.h"

#include <sstream>
#include <vector>

namespace vs {

namespace {
std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        // the host's words: shown without its control characters (an escape sequence, a \r)
        if (!line.empty())
            lines.push_back(terminalText(line.size() > 300 ? line.substr(0, 300) + "..." : line));
    }
    return lines;
}

bool mentions(const std::vector<std::string>& lines, std::initializer_list<const char*> needles) {
    for (const auto& line : lines)
        for (const char* n : needles)
            if (line.find(n) != std::string::npos) return true;
    return false;
}

// ssh's own line about a broken connection, else the last line.
std::string lastWord(const std::vector<std::string>& lines) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->find("onnection") != std::string::npos || it->rfind("ssh:", 0) == 0 ||
            it->rfind("client_loop", 0) == 0)
            return *it;
    return lines.empty() ? "no message" : lines.back();
}
} // namespace

SshFailure describeSshFailure(const SshTarget& target, int exitCode, const std::string& stderrText) {
    const std::string host = target.destination();
    // the command a hint suggests reaches the same port (ssh://me@gpu:2222/... is `ssh -p 2222 me@gpu`)
    const std::string options = target.port ? " -p " + std::to_string(target.port) : "";
    const auto lines = linesOf(stderrText);
    constexpr std::string_view ours = "vramscope-remote: ";
    for (const auto& line : lines)
        if (line.rfind(ours, 0) == 0)
            return {SshFailure::Kind::Remote, host + ": " + line.substr(ours.size())};
    using K = SshFailure::Kind;
    if (exitCode != 255)
        return {K::Remote, "The command on " + host + " failed (exit status " + std::to_string(exitCode) +
                               "): " + (lines.empty() ? "no message" : lines.back())};
    if (mentions(lines, {"Host key verification failed", "HOST IDENTIFICATION HAS CHANGED", "host key for"}))
        return {K::HostKey, "The host key of " + host +
                                " was refused (unknown or changed), so nothing was sent: connect once with "
                                "`ssh" +
                                options + " " + host + "` in a terminal to check the key and accept it."};
    if (mentions(lines,
                 {"Permission denied", "Too many authentication failures", "no more authentication methods"}))
        return {K::Authentication,
                "Logging in to " + host +
                    " failed (authentication refused): vramscope connects without prompting, "
                    "with your SSH keys or ssh-agent; check that `ssh -o BatchMode=yes" +
                    options + " " + host + " true` works."};
    if (mentions(lines, {"remote port forwarding failed", "forwarding failed for listen path"}))
        return {K::Forwarding,
                host +
                    " refused to forward the live socket back (AllowStreamLocalForwarding in its "
                    "sshd_config): " +
                    lastWord(lines)};
    if (mentions(lines, {"Could not resolve hostname", "Connection refused", "Connection timed out",
                         "No route to host", "Network is unreachable", "Name or service not known",
                         "Bad configuration option", "Bad port"}))
        return {K::Connect, "Cannot connect to " + host + ": " + lastWord(lines)};
    return {K::Dropped, "The connection to " + host + " was lost (" + lastWord(lines) + ")."};
}

} // namespace vs
