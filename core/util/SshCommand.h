#pragma once
// The ssh command lines vramscope runs: OpenSSH does the connection, the host keys and the
// authentication (nothing of it is ours), without prompting (BatchMode: a GUI has no terminal), and
// notices a dead network (ServerAlive). The command handed to the host's login shell is always
// kRemoteCommand (RemoteInput): what runs there is read from stdin.
#include "SshTarget.h"

#include <string>
#include <string_view>
#include <vector>

namespace vs {

// The ssh program and options of its own: the words of $VRAMSCOPE_SSH (e.g. "ssh -F ~/.ssh/lab")
// when set, else "ssh".
std::vector<std::string> sshProgram();

// `text` as one word of POSIX sh: '...' with every ' written '\'' (for our own scripts' constants).
std::string shellQuote(std::string_view text);
// Statements joined into one line ("; ", or " " after a statement that ends in '&').
std::string shellLine(const std::vector<std::string>& statements);

// ssh [options] [-p PORT] [-l USER] [-R FORWARD] -- HOST kRemoteCommand; the script and its values
// go on ssh's stdin (remoteInput). `forward` is "remote.sock:local.sock" (then
// ExitOnForwardFailure: a refused forwarding is an error).
std::vector<std::string> sshArgv(const SshTarget& target, const std::string& forward = {});

} // namespace vs
