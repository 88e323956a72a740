#pragma once
// The CLI's FILE as ssh://[user@]host[:port]/path: copied once through the user's own ssh (`cat` on
// the host) into a private temporary directory that is removed when the process exits, or ends by
// Ctrl-C, SIGTERM or SIGHUP (Interrupts). A file still being written is read as far as it was when
// the host said its size, and never further: the copy is bounded by that size (RemoteAnswer).
#include <string>

namespace vs::cli {

// `file` itself when it is not an ssh:// address, else the local copy's path. Throws
// std::runtime_error with ssh's reason in one sentence (host key, login, connection, no such file).
std::string localCopyOf(const std::string& file);
// What to show for a path localCopyOf returned: the ssh:// address it came from, else the path.
std::string shownPath(const std::string& path);
// Removes a copy localCopyOf made (its private directory) now rather than at exit, so that a command
// going through many remote files keeps one on disk at a time; nothing for a local path.
void removeLocalCopy(const std::string& path);

} // namespace vs::cli
