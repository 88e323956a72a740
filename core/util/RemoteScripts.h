#pragma once
// The sh scripts vramscope runs on a remote host through ssh (SshCommand), and the marker lines
// they print on stdout for the caller ("VRAMSCOPE-REMOTE key=value"; a line a login script prints
// before them is skipped; RemoteAnswer checks the values). Each script is fixed text: the user's
// paths and words are its values, sent as data on stdin (RemoteInput), never written into it.
// Their own failures are one line "vramscope-remote: ..." on stderr (SshFailure turns it into the
// message shown).
#include "RemoteInput.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vs {

inline constexpr std::string_view kRemoteMarker = "VRAMSCOPE-REMOTE ";
// ("size", "123") from "VRAMSCOPE-REMOTE size=123"; nullopt for any other line.
std::optional<std::pair<std::string, std::string>> parseRemoteMarker(std::string_view line);

// Prints "size=N" (the file's size now), then the file's bytes: the whole file (cat), or, with
// `follow`, also whatever is appended later (tail -f) until the caller ends the connection.
RemoteScript readFileScript(const std::string& path, bool follow);

// A program to record on the host: its command line as the user typed it (`python train.py`,
// `python -m pkg`, or any CUDA program), where to run it (empty: the remote home) and the .vscap
// file to write there (empty: vramscope-DATE.vscap in that directory).
struct RemoteProgram {
    std::vector<std::string> words;
    std::string workDir;
    std::string output;
};

// A command line the recorders cannot run (python options before the script, an empty line).
struct RemoteProgramError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Python programs run under the Python recorder (`python -m vramscope record`), anything else
// under the CUPTI agent (`vramscope-cli run`); each must be installed on the host.
bool runsUnderPythonRecorder(const RemoteProgram& program);

// First connection: makes the private directory (mktemp -d, 0700) that the live socket is
// forwarded into, and checks the recorder is installed. Prints "dir=D" (isPlainRemoteDir checks it),
// then keeps D only when the caller answers with a line "keep" on stdin (kKeepPreparedDir): a caller
// gone before that (Ctrl-C, a lost connection) leaves no directory behind.
RemoteScript prepareRunScript(const RemoteProgram& program);
inline constexpr std::string_view kKeepPreparedDir = "keep\n";
// The forwarded socket's path in that directory.
std::string remoteSocketPath(const std::string& dir);
// Second connection (with the socket forwarded): starts the program under the recorder in its own
// session with its output in OUTPUT.log, so that a closed connection never ends it; prints
// "pid=P" and "output=HEX" (the recording's absolute path, hex: it may hold a newline), passes the program's
// output on to stderr while it runs, then prints "exit=N" and exits N. A line "stop" on stdin interrupts the
// program (SIGINT to its process group, as Ctrl-C would); closing stdin leaves it running. Throws
// RemoteProgramError for a command line it cannot run.
RemoteScript runScript(const RemoteProgram& program, const std::string& dir, const std::string& timestamp);

} // namespace vs
