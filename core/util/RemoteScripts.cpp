#include "RemoteScripts.h"

#include "SshCommand.h"

namespace vs {

namespace {
// Exit statuses of the scripts' own failures (distinct from ssh's 255 and a shell's 126/127; 65 is
// kReadValue's: the input was not what we send).
constexpr const char* kUnreadable = "66";
constexpr const char* kNoRecorder = "67";
constexpr const char* kNoTempDir = "70";
constexpr const char* kNoWorkDir = "71";
constexpr const char* kExists = "73";
constexpr const char* kFolder = "74";
constexpr const char* kNotKept = "75";

// $v as a path: a leading "~/" is the remote home (the value is never expanded by a shell).
constexpr const char* kHome = "home() { case $v in \"~/\"*) v=$HOME/${v#??} ;; esac; }";

// `before` runs first (a clean-up), then the message on stderr and the exit. `format` is ours (a
// printf format, no quote in it); `args` are sh words ("$f") that fill its %s.
std::string say(const std::string& format, const char* code, const std::string& args = {},
                const std::string& before = {}) {
    return "{ " + before + "printf " + shellQuote("vramscope-remote: " + format + "\\n") + args +
           " >&2; exit " + code + "; }";
}

// The marker line KEY=VALUE; `shellValue` is a sh word.
std::string marker(const std::string& key, const std::string& shellValue) {
    return "printf " + shellQuote(std::string(kRemoteMarker) + key + "=%s\\n") + " " + shellValue;
}

bool isPythonWord(const std::string& word) {
    const std::string base = word.substr(word.rfind('/') + 1);
    if (base.rfind("python", 0) != 0) return false;
    for (char c : base.substr(6))
        if (!(c >= '0' && c <= '9') && c != '.') return false;
    return true;
}

// An asynchronous command of a non-interactive sh starts with SIGINT ignored, and Python then
// keeps it ignored: this restores Ctrl-C's KeyboardInterrupt (the program's own cleanup and the
// recorder's end record) before running `python -m vramscope`.
constexpr const char* kPythonPrelude =
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('vramscope', run_name='__main__', alter_sys=True)";

// The recorder's command line, writing "$out" and streaming to "$sock", with the program's words
// in "$@" (none of them in the script). Throws RemoteProgramError for a line it cannot run.
std::string recorderCommand(const RemoteProgram& p) {
    if (!runsUnderPythonRecorder(p))
        return "setsid -- vramscope-cli run -o \"$out\" --live \"$sock\" -- \"$@\"";
    const auto& w = p.words;
    const std::string python =
        "setsid -- \"$py\" -c " + shellQuote(kPythonPrelude) + " record -o \"$out\" --live \"$sock\"";
    if (w.size() < 2) throw RemoteProgramError("give the script after python (python train.py)");
    if (w[1] == "-m") {
        if (w.size() < 3) throw RemoteProgramError("give the module after python -m");
        return "py=$1; mod=$3; shift 3; " + python + " -m \"$mod\" -- \"$@\"";
    }
    if (w[1].rfind('-', 0) == 0)
        throw RemoteProgramError("python options before the script (" + w[1] +
                                 ") are not supported here: put them in PYTHONFLAGS or a wrapper script");
    return "py=$1; shift; " + python + " -- \"$@\"";
}
} // namespace

std::optional<std::pair<std::string, std::string>> parseRemoteMarker(std::string_view line) {
    if (line.substr(0, kRemoteMarker.size()) != kRemoteMarker) return std::nullopt;
    line.remove_prefix(kRemoteMarker.size());
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    return std::pair{std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))};
}

RemoteScript readFileScript(const std::string& path, bool follow) {
    return {
        shellLine({
            kReadValue,
            kHome,
            "val; p=$v; home; f=$v",
            // a folder is read only on the viewer's machine (ranks, summarize): said as such
            "[ -d \"$f\" ] && " +
                say("%s is a folder on this host: name its files one by one (ssh:// folders are not "
                    "listed)",
                    kFolder, " \"$p\""),
            "[ -f \"$f\" ] && [ -r \"$f\" ] || " +
                say("cannot read %s on this host (no such file, or not readable)", kUnreadable, " \"$p\""),
            marker("size", "\"$(wc -c < \"$f\" | tr -d ' ')\""),
            follow ? "exec tail -c +1 -f -- \"$f\"" : "exec cat -- \"$f\"",
        }),
        {path}};
}

bool runsUnderPythonRecorder(const RemoteProgram& program) {
    return !program.words.empty() && isPythonWord(program.words.front());
}

RemoteScript prepareRunScript(const RemoteProgram& program) {
    if (program.words.empty()) throw RemoteProgramError("no program given");
    const bool python = runsUnderPythonRecorder(program);
    const std::string check = python ? "\"$py\" -c 'import vramscope' </dev/null >/dev/null 2>&1"
                                     : "command -v vramscope-cli >/dev/null 2>&1";
    const std::string missing =
        python ? say("the vramscope recorder is not installed for %s on this host: pip install it there "
                     "(capture/python of vramscope)",
                     kNoRecorder, " \"$py\"", "rmdir -- \"$d\"; ")
               : say("vramscope-cli is not installed on this host (it records CUDA programs there)",
                     kNoRecorder, {}, "rmdir -- \"$d\"; ");
    return {
        shellLine({
            kReadValue,
            "val; py=$v",
            "d=$(umask 077 && mktemp -d \"${TMPDIR:-/tmp}/vramscope-XXXXXXXX\") || " +
                say("cannot make a private directory on this host (mktemp -d)", kNoTempDir),
            check + " || " + missing,
            // The viewer may be gone by now (Ctrl-C, SIGTERM during a slow check): the marker
            // is then written into a closed pipe (ignored, not our death), and the directory
            // is kept only when the viewer answers "keep" (EOF otherwise: it is removed).
            "trap '' PIPE",
            marker("dir", "\"$d\""),
            "IFS= read -r k; [ \"$k\" = keep ] || { rmdir -- \"$d\"; exit " + std::string(kNotKept) + "; }",
        }),
        {program.words.front()}};
}

std::string remoteSocketPath(const std::string& dir) {
    return dir + "/live.sock";
}

RemoteScript runScript(const RemoteProgram& program, const std::string& dir, const std::string& timestamp) {
    if (program.words.empty()) throw RemoteProgramError("no program given");
    const std::string output = program.output.empty() ? "vramscope-" + timestamp + ".vscap" : program.output;
    RemoteScript s;
    s.script = shellLine({
        kReadValue,
        kHome,
        "val; d=$v; val; home; out=$v; val; home; wd=$v; val; n=$v",
        "case $n in '' | *[!0-9]*) exit 65 ;; esac",
        "set --",
        "while [ \"$n\" -gt 0 ]; do val; set -- \"$@\" \"$v\"; n=$((n - 1)); done",
        "exec 3<&0 </dev/null", // what follows on stdin is the viewer's requests: kept on 3 only
        "sock=\"$d/live.sock\"",
        "if [ -n \"$wd\" ]; then cd -- \"$wd\" || " +
            say("cannot enter %s on this host", kNoWorkDir, " \"$wd\"") + "; fi",
        "case $out in /*) ;; *) out=\"$PWD/$out\" ;; esac",
        "for f in \"$out\" \"$out.log\"; do if [ -e \"$f\" ] || [ -L \"$f\" ]; then " +
            say("%s already exists on this host", kExists, " \"$f\"") + "; fi; done",
        // noclobber: the log is created afresh (O_EXCL), never written through a link planted since
        "set -C",
        recorderCommand(program) + " </dev/null >\"$out.log\" 2>&1 &",
        "pid=$!",
        marker("pid", "\"$pid\""),
        // The recording's path may hold any byte (a newline): sent as hex, one line whatever it is.
        marker("output", "\"$(printf %s \"$out\" | od -An -v -tx1 | tr -d ' \\n')\""),
        "( while read -r w <&3; do [ \"$w\" = stop ] && kill -s INT -- -\"$pid\"; done ) >/dev/null 2>&1 &",
        "reader=$!",
        // The program's output, passed on while it runs (in the foreground: the shell reaps the
        // program, which tail --pid waits for). tail can miss what was written just before the
        // program ended: what it passed on is counted, and the rest follows once the program is gone.
        "tail -n +1 -f --pid=\"$pid\" -- \"$out.log\" 2>/dev/null | tee -a /dev/fd/2 | wc -c >\"$d/shown\"",
        "wait \"$pid\"",
        "rc=$?",
        "shown=$(cat -- \"$d/shown\" 2>/dev/null)",
        "tail -c +$((${shown:-0} + 1)) -- \"$out.log\" >&2 2>/dev/null",
        "rm -f -- \"$d/shown\"",
        "kill \"$reader\" 2>/dev/null",
        "rm -f -- \"$sock\"",
        "rmdir -- \"$d\" 2>/dev/null",
        marker("exit", "\"$rc\""),
        "exit \"$rc\"",
    });
    s.values = {dir, output, program.workDir, std::to_string(program.words.size())};
    s.values.insert(s.values.end(), program.words.begin(), program.words.end());
    return s;
}

} // namespace vs
