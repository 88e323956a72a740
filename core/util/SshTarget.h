#pragma once
// Where a remote capture is: `ssh://[user@]host[:port]/path` (the GUI's argument, File > Open Remote,
// the CLI's FILE) or, for `run --remote`, `[user@]host[:port]`. Only names that cannot be read as an
// ssh option or as a second argument are accepted (no leading '-', no spaces or control characters):
// the host and user end up on ssh's command line, the path inside a quoted remote command.
#include <optional>
#include <string>

namespace vs {

struct SshTarget {
    std::string user; // empty: ssh's own default (~/.ssh/config, then the local user name)
    std::string host; // a name, an address, or an alias of ~/.ssh/config
    int port = 0;     // 0: ssh's own default
    std::string path; // absolute, or relative to the remote home when it starts with "~/"

    std::string destination() const { return user.empty() ? host : user + "@" + host; }
    std::string url() const; // ssh://... again (percent-encoding what needs it)
};

// True when `text` starts with ssh:// (then it is never a local file name).
bool isSshUrl(const std::string& text);

// Parses ssh://[user@]host[:port]/path; `/~/x` means x in the remote home. std::nullopt and one
// sentence in `error` when it is not one or names something unsafe.
std::optional<SshTarget> parseSshUrl(const std::string& url, std::string& error);

// Parses [user@]host[:port] (or ssh://[user@]host[:port][/]): the path stays empty.
std::optional<SshTarget> parseSshHost(const std::string& text, std::string& error);

} // namespace vs
