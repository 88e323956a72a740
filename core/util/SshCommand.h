#pragma once
// The ssh command lines vramscope runs: OpenSSH does the connection, the host keys and the
// authentication (nothing of it is ours), without prompting (BatchMode: a GUI has no terminal), and
// notices a dead network (ServerAlive). The command run on the host is one line of POSIX sh, quoted
// for any login shell.
#include "SshTarget.h"

#include <string>
#include <string_view>
#include <vector>

namespace vs {

// The ssh program and options of its own: the words of $VRAMSCOPE_SSH (e.g. "ssh -F ~/.ssh/lab")
// when set, else "ssh".
std::vector<std::string> sshProgram();

// `text` as one word of POSIX sh: '...' with every ' written '\''.
std::string shellQuote(std::string_view text);
// A remote path as a sh word: "~/x" becomes "$HOME"/'x' (a quoted ~ is not expanded).
std::string shellPath(const std::string& path);
// Statements joined into one line ("; ", or " " after a statement that ends in '&').
std::string shellLine(const std::vector<std::string>& statements);

// ssh [options] [-p PORT] [-l USER] [-R FORWARD] -- HOST sh -c 'SCRIPT'. `forward` is
// "remote.sock:local.sock" (then ExitOnForwardFailure: a refused forwarding is an error).
std::vector<std::string> sshArgv(const SshTarget& target, const std::string& script,
                                 const std::string& forward = {});

} // namespace vs
