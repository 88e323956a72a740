#include "SshCommand.h"

#include "RemoteInput.h"

#include <cstdlib>
#include <sstream>

namespace vs {

std::vector<std::string> sshProgram() {
    std::vector<std::string> words;
    if (const char* custom = std::getenv("VRAMSCOPE_SSH")) {
        std::istringstream in(custom);
        for (std::string w; in >> w;) words.push_back(w);
    }
    if (words.empty()) words.emplace_back("ssh");
    return words;
}

std::string shellQuote(std::string_view text) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::string shellLine(const std::vector<std::string>& statements) {
    std::string line;
    for (const auto& s : statements) {
        if (!line.empty()) line += line.back() == '&' ? " " : "; ";
        line += s;
    }
    return line;
}

std::vector<std::string> sshArgv(const SshTarget& target, const std::string& forward) {
    std::vector<std::string> argv = sshProgram();
    for (const char* option :
         {"BatchMode=yes", "ServerAliveInterval=15", "ServerAliveCountMax=4", "ConnectTimeout=30"})
        argv.insert(argv.end(), {"-o", option});
    argv.emplace_back("-T"); // no terminal: the remote side's bytes are data
    if (target.port) argv.insert(argv.end(), {"-p", std::to_string(target.port)});
    if (!target.user.empty()) argv.insert(argv.end(), {"-l", target.user});
    if (!forward.empty()) argv.insert(argv.end(), {"-o", "ExitOnForwardFailure=yes", "-R", forward});
    // The login shell may be bash, zsh, fish, tcsh or nushell: it sees one constant, never a word
    // of the user's.
    argv.insert(argv.end(), {"--", target.host, kRemoteCommand});
    return argv;
}

} // namespace vs
