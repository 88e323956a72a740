#pragma once
// How a command reaches another machine without any shell there reading the user's words: ssh hands
// its command line to the user's login shell (sh, bash, fish, tcsh, nushell...), so that line is one
// constant (kRemoteCommand) that starts /bin/sh reading one line from stdin and running it. That line
// is one of our fixed scripts (RemoteScripts); the user's paths and words follow it on stdin as
// values, one a line, each byte written as a \ooo octal escape that the script turns back into bytes
// with printf: no value is ever parsed as code by any shell. Whatever follows the values on stdin is
// the script's own (run --remote's "stop" requests).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

// What every login shell is handed: the same text whatever is run, with nothing in it that sh,
// bash, zsh, fish, csh, tcsh or nushell reads differently (no backslash, newline, ! or quote but
// the outer single quotes).
inline constexpr const char* kRemoteCommand = "exec /bin/sh -c 'IFS= read -r s && eval \"$s\"'";

// A fixed script (one line of POSIX sh, no user data in it) and the values it reads, in order, with
// kReadValue.
struct RemoteScript {
    std::string script;
    std::vector<std::string> values;
};

// The sh function a script calls to read its next value into $v (exit 65 on anything else).
inline constexpr const char* kReadValue =
    "val() { IFS= read -r l || exit 65; case $l in *[!0-7\\\\]*) exit 65 ;; esac; v=$(printf \"${l}x\"); "
    "v=${v%x}; }";

// A value that cannot be sent (a NUL byte: no shell variable holds one; or more than kMaxValues).
struct RemoteValueError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};
inline constexpr size_t kMaxValueBytes = 256 << 10; // all values together, before encoding

// The bytes to write on ssh's stdin: the script's line, then each value's line. Throws
// RemoteValueError.
std::string remoteInput(const RemoteScript& command);

} // namespace vs
