#include "RemoteScripts.h"

#include "SshCommand.h"

namespace vs {

namespace {
// Exit statuses of the scripts' own failures (distinct from ssh's 255 and a shell's 126/127).
constexpr const char* kUnreadable = "66";
constexpr const char* kNoRecorder = "67";
constexpr const char* kNoTempDir = "70";
constexpr const char* kNoWorkDir = "71";
constexpr const char* kExists = "73";

// `before` runs first (a clean-up), then the message on stderr and the exit.
std::string say(const std::string& message, const char* code, const std::string& before = {}) {
    return "{ " + before + "echo " + shellQuote("vramscope-remote: " + message) + " >&2; exit " + code +
           "; }";
}

std::string marker(const std::string& key, const std::string& shellValue) {
    return "echo " + shellQuote(std::string(kRemoteMarker) + key + "=") + "\"" + shellValue + "\"";
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

std::string quotedWords(const std::vector<std::string>& words, size_t from) {
    std::string out;
    for (size_t i = from; i < words.size(); ++i) {
        out += ' ';
        out += shellQuote(words[i]);
    }
    return out;
}

// The recorder's command line, writing "$out" and streaming to "$sock".
std::string recorderCommand(const RemoteProgram& p) {
    if (!runsUnderPythonRecorder(p))
        return "vramscope-cli run -o \"$out\" --live \"$sock\" --" + quotedWords(p.words, 0);
    const auto& w = p.words;
    std::string cmd =
        shellQuote(w[0]) + " -c " + shellQuote(kPythonPrelude) + " record -o \"$out\" --live \"$sock\"";
    if (w.size() < 2) throw RemoteProgramError("give the script after python (python train.py)");
    if (w[1] == "-m") {
        if (w.size() < 3) throw RemoteProgramError("give the module after python -m");
        return cmd + " -m " + shellQuote(w[2]) + " --" + quotedWords(w, 3);
    }
    if (w[1].rfind('-', 0) == 0)
        throw RemoteProgramError("python options before the script (" + w[1] +
                                 ") are not supported here: put them in PYTHONFLAGS or a wrapper script");
    return cmd + " --" + quotedWords(w, 1);
}
} // namespace

std::optional<std::pair<std::string, std::string>> parseRemoteMarker(std::string_view line) {
    if (line.substr(0, kRemoteMarker.size()) != kRemoteMarker) return std::nullopt;
    line.remove_prefix(kRemoteMarker.size());
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    return std::pair{std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))};
}

std::string readFileScript(const std::string& path, bool follow) {
    return shellLine({
        "f=" + shellPath(path),
        "[ -f \"$f\" ] && [ -r \"$f\" ] || " +
            say("cannot read " + path + " on this host (no such file, or not readable)", kUnreadable),
        marker("size", "$(wc -c < \"$f\" | tr -d ' ')"),
        follow ? "exec tail -c +1 -f -- \"$f\"" : "exec cat -- \"$f\"",
    });
}

bool runsUnderPythonRecorder(const RemoteProgram& program) {
    return !program.words.empty() && isPythonWord(program.words.front());
}

std::string prepareRunScript(const RemoteProgram& program) {
    if (program.words.empty()) throw RemoteProgramError("no program given");
    const bool python = runsUnderPythonRecorder(program);
    const std::string check =
        python ? shellQuote(program.words.front()) + " -c 'import vramscope' >/dev/null 2>&1"
               : "command -v vramscope-cli >/dev/null 2>&1";
    const std::string missing =
        python ? "the vramscope recorder is not installed for " + program.words.front() +
                     " on this host: pip install it there (capture/python of vramscope)"
               : "vramscope-cli is not installed on this host (it records CUDA programs there)";
    return shellLine({
        "d=$(umask 077 && mktemp -d \"${TMPDIR:-/tmp}/vramscope-XXXXXXXX\") || " +
            say("cannot make a private directory on this host (mktemp -d)", kNoTempDir),
        check + " || " + say(missing, kNoRecorder, "rmdir -- \"$d\"; "),
        marker("dir", "$d"),
    });
}

std::string remoteSocketPath(const std::string& dir) {
    return dir + "/live.sock";
}

std::string runScript(const RemoteProgram& program, const std::string& dir, const std::string& timestamp) {
    if (program.words.empty()) throw RemoteProgramError("no program given");
    const std::string output = program.output.empty() ? "vramscope-" + timestamp + ".vscap" : program.output;
    std::vector<std::string> s = {
        "exec 3<&0 </dev/null", // the viewer's requests stay on 3; nothing else reads them
        "d=" + shellQuote(dir),
        "sock=\"$d/live.sock\"",
        "out=" + shellPath(output),
    };
    if (!program.workDir.empty())
        s.push_back("cd -- " + shellPath(program.workDir) + " || " +
                    say("cannot enter " + program.workDir + " on this host", kNoWorkDir));
    s.insert(s.end(),
             {
                 "case $out in /*) ;; *) out=\"$PWD/$out\" ;; esac",
                 "if [ -e \"$out\" ] || [ -L \"$out\" ]; then " +
                     say(output + " already exists on this host", kExists) + "; fi",
                 "setsid " + recorderCommand(program) + " </dev/null >\"$out.log\" 2>&1 &",
                 "pid=$!",
                 marker("pid", "$pid"),
                 marker("output", "$out"),
                 "( while read -r w <&3; do [ \"$w\" = stop ] && kill -s INT -- -\"$pid\"; done ) "
                 ">/dev/null 2>&1 &",
                 "reader=$!",
                 // The program's output, passed on while it runs (in the foreground: the shell
                 // reaps the program, which tail --pid waits for). tail can miss what was written
                 // just before the program ended: what it passed on is counted, and the rest
                 // follows once the program is gone.
                 "tail -n +1 -f --pid=\"$pid\" -- \"$out.log\" 2>/dev/null | tee -a /dev/fd/2 | wc -c "
                 ">\"$d/shown\"",
                 "wait \"$pid\"",
                 "rc=$?",
                 "shown=$(cat -- \"$d/shown\" 2>/dev/null)",
                 "tail -c +$((${shown:-0} + 1)) -- \"$out.log\" >&2 2>/dev/null",
                 "rm -f -- \"$d/shown\"",
                 "kill \"$reader\" 2>/dev/null",
                 "rm -f -- \"$sock\"",
                 "rmdir -- \"$d\" 2>/dev/null",
                 marker("exit", "$rc"),
                 "exit \"$rc\"",
             });
    return shellLine(s);
}

} // namespace vs
