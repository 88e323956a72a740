#pragma once
// What went wrong in an ssh command, in one sentence for the user: ssh exits 255 for its own
// failures and says why on stderr (a refused host key, a failed login, no connection, a connection
// that dropped); vramscope's remote scripts say theirs on a "vramscope-remote:" line; anything else
// is the remote command's own exit status. What the host wrote is quoted with its control characters
// escaped (TerminalText): it may be hostile.
#include "SshTarget.h"

#include <string>

namespace vs {

struct SshFailure {
    enum class Kind { HostKey, Authentication, Connect, Forwarding, Dropped, Remote };
    Kind kind;
    std::string message;
};

// `target` names the host as the user wrote it (and the port, in the ssh command a hint suggests);
// `exitCode` ssh's (255: ssh's own failure); `stderrText` what ssh and the remote side wrote on
// stderr (the end of it is enough).
SshFailure describeSshFailure(const SshTarget& target, int exitCode, const std::string& stderrText);

} // namespace vs
