// `run --remote [user@]host[:port] [-o LOCAL] [--live SOCKET] [--remote-output PATH] [--cd DIR] --
// PROGRAM ARGS`: records PROGRAM on the host under its recorder (python: the Python recorder, else
// the CUPTI agent), through the user's own ssh. The recorder's live stream comes back over a Unix
// socket that ssh forwards (-R): to a viewer listening at SOCKET (Capture > Listen), or else into
// LOCAL here. The recording is also written on the host, and kept there. The first Ctrl-C stops the
// program (as Ctrl-C would on the host), a second one leaves it running and disconnects.
#include "Commands.h"
#include "Interrupts.h"
#include "SshProcess.h"

#include "io/MemoryBudget.h"
#include "util/PrivatePath.h"
#include "util/PrivateSocket.h"
#include "util/RemoteAnswer.h"
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/SshFailure.h"
#include "util/TerminalText.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace vs::cli {

namespace {
constexpr size_t kMaxAnswer = 64 << 10;                  // a marker line, or a login script's chatter
constexpr auto kPrepareWait = std::chrono::seconds(120); // the login, mktemp and the recorder's import

struct Options {
    SshTarget target;
    std::string localCopy, live;
    RemoteProgram program;
};

Options parseOptions(const std::vector<std::string>& args) {
    Options o;
    size_t i = 0;
    std::string host;
    for (; i < args.size() && args[i] != "--"; ++i) {
        const bool value = i + 1 < args.size() && args[i + 1] != "--";
        if (args[i] == "--remote" && value)
            host = args[++i];
        else if ((args[i] == "-o" || args[i] == "--output") && value)
            o.localCopy = args[++i];
        else if (args[i] == "--live" && value)
            o.live = args[++i];
        else if (args[i] == "--remote-output" && value)
            o.program.output = args[++i];
        else if (args[i] == "--cd" && value)
            o.program.workDir = args[++i];
        else
            throw UsageError("bad option " + args[i] +
                             " (run --remote HOST [-o LOCAL] [--live SOCKET] "
                             "[--remote-output PATH] [--cd DIR] -- PROGRAM ARGS)");
    }
    o.program.words.assign(args.begin() + long(std::min(i + 1, args.size())), args.end());
    if (o.program.words.empty()) throw UsageError("run --remote needs a program after --");
    std::string error;
    const auto t = parseSshHost(host, error);
    if (!t) throw UsageError("--remote " + host + ": " + error);
    o.target = *t;
    if (o.localCopy.empty()) o.localCopy = "vramscope-remote-" + std::to_string(getpid()) + ".vscap";
    if (o.live.find(':') != std::string::npos)
        throw UsageError("the --live socket path may not hold ':' (ssh -R)");
    return o;
}

std::string timestamp() {
    char buf[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
    return buf;
}

[[noreturn]] void failWith(const SshTarget& t, int rc, const std::string& err) {
    throw std::runtime_error(describeSshFailure(t, rc, err).message);
}

bool holdsDirMarker(const std::string& text) {
    for (size_t at = 0, eol; (eol = text.find('\n', at)) != std::string::npos; at = eol + 1)
        if (const auto m = parseRemoteMarker(std::string_view(text).substr(at, eol - at));
            m && m->first == "dir")
            return true;
    return false;
}

// The first connection: the private directory on the host, the recorder checked there. Its answer
// becomes part of ssh's -R option: only a plain absolute path is taken. The host keeps the
// directory once told to ("keep"); a signal before that (a slow login or recorder check) ends ssh,
// which makes the host remove it, and then the CLI by that signal. One after it is the run's own.
std::string prepare(const Options& o, const Interrupts& interrupts) {
    SshProcess ssh(sshArgv(o.target), remoteInput(prepareRunScript(o.program)), false, true);
    std::string text;
    bool kept = false;
    const auto take = [&](std::string_view data) {
        text.append(data);
        if (!kept && interrupts.count() == 0 && holdsDirMarker(text)) {
            kept = true;
            (void)!::write(ssh.in(), kKeepPreparedDir.data(), kKeepPreparedDir.size());
            ssh.closeIn();
        }
        return text.size() <= kMaxAnswer;
    };
    const auto deadline = std::chrono::steady_clock::now() + kPrepareWait;
    const auto how = ssh.pump(
        take, [&] { return interrupts.count() == 0 && std::chrono::steady_clock::now() < deadline; });
    if (!kept && interrupts.count()) ssh.stop(), Interrupts::endBy(interrupts.last());
    if (how == SshProcess::Pumped::Stopped) ssh.stop();
    const int rc = how == SshProcess::Pumped::Stopped ? 0 : ssh.wait();
    if (rc != 0) failWith(o.target, rc, ssh.errText());
    for (size_t at = 0, eol; (eol = text.find('\n', at)) != std::string::npos; at = eol + 1)
        if (const auto m = parseRemoteMarker(std::string_view(text).substr(at, eol - at));
            m && m->first == "dir") {
            if (isPlainRemoteDir(m->second)) return m->second;
            throw std::runtime_error(o.target.destination() +
                                     " answered with a private directory that is not a "
                                     "plain absolute path (" +
                                     terminalText(m->second.substr(0, 120)) + ")");
        }
    throw std::runtime_error(o.target.destination() +
                             " answered without the private directory it should have made");
}

// The local end of the forwarded socket when no viewer is given: a private listening socket whose
// connections are appended to the local copy. The copy stops at --max-memory (what this machine
// could load of it; the host's recording goes on and keeps everything): the stream is the host's
// to fill, and it could fill the disk here.
struct LocalEnd {
    std::string dir, socket;
    int listenFd = -1, conn = -1, file = -1;
    uint64_t received = 0, limit = MemoryBudget::processDefault();
    bool full = false; // the copy reached `limit`: nothing more is accepted
    ~LocalEnd() {
        for (int fd : {listenFd, conn, file})
            if (fd >= 0) ::close(fd);
        std::error_code ec;
        if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
    void open(const std::string& localCopy) {
        const char* tmp = std::getenv("TMPDIR");
        dir = makePrivateTempDir(tmp && *tmp ? tmp : "/tmp", "vramscope-forward-");
        socket = dir + "/live.sock";
        std::string error;
        if ((listenFd = listenPrivately(socket, error)) < 0) throw std::runtime_error(error);
        if ((file = createExclusive(localCopy, error)) < 0) throw std::runtime_error(error);
    }
    void accept() {
        const int fd = ::accept4(listenFd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;
        if (conn >= 0) ::close(conn); // one recording at a time: the newest
        conn = fd;
    }
    void read() {
        char buf[1 << 16];
        const ssize_t n = ::read(conn, buf, sizeof buf);
        if (n < 0 && errno == EINTR) return;
        if (n <= 0) {
            ::close(conn), conn = -1;
            return;
        }
        const auto kept = ssize_t(std::min<uint64_t>(uint64_t(n), limit - received));
        for (ssize_t at = 0, w; at < kept; at += w)
            if ((w = ::write(file, buf + at, size_t(kept - at))) <= 0)
                throw std::runtime_error("cannot write the local copy");
        received += uint64_t(kept);
        if (received == limit) stop();
    }
    void stop() {
        full = true;
        for (int* fd : {&conn, &listenFd})
            if (*fd >= 0) ::close(*fd), *fd = -1;
    }
};

// What the run script printed on stdout: its markers, each checked (the host may be hostile). A
// line longer than kMaxAnswer is no marker: dropped as it comes.
struct Markers {
    std::string pending, pid = "?", output = "?";
    int exit = -1;
    bool started = false;
    void take(const char* data, size_t n, const std::string& host) {
        pending.append(data, n);
        for (size_t eol; (eol = pending.find('\n')) != std::string::npos; pending.erase(0, eol + 1))
            if (const auto m = parseRemoteMarker(std::string_view(pending).substr(0, eol))) use(*m, host);
        if (pending.size() > kMaxAnswer) pending.clear();
    }
    void use(const std::pair<std::string, std::string>& m, const std::string& host) {
        if (m.first == "pid")
            if (const auto p = parseRemoteNumber(m.second, 1L << 30))
                pid = std::to_string(*p), started = true;
        if (m.first == "output") {
            const auto path = decodeRemoteHex(m.second);
            output = path ? terminalText(*path) : "?";
            std::cerr << "vramscope-cli: recording on " << host << " (pid " << pid << ") into " << output
                      << " (kept there)\n";
        }
        if (m.first == "exit")
            if (const auto e = parseRemoteNumber(m.second, 255)) exit = int(*e);
    }
};
} // namespace

int runRemoteRun(const std::vector<std::string>& args, std::ostream& out) {
    const Options o = parseOptions(args);
    try {
        // a command line the recorders cannot run, or words that cannot be sent, fail before connecting
        (void)remoteInput(runScript(o.program, "/d", "t"));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::string host = o.target.destination();
    // Ctrl-C while preparing: nothing is left on the host. While running: stop the program; again,
    // or SIGTERM/SIGHUP: leave it running.
    Interrupts interrupts;
    const std::string dir = prepare(o, interrupts);
    LocalEnd local;
    if (o.live.empty()) local.open(o.localCopy);
    SshProcess ssh(sshArgv(o.target, remoteSocketPath(dir) + ":" + (o.live.empty() ? local.socket : o.live)),
                   remoteInput(runScript(o.program, dir, timestamp())), false, true);
    Markers markers;
    int seen = 0;
    bool detached = false;
    while (ssh.out() >= 0 || ssh.err() >= 0 || local.conn >= 0) {
        if (interrupts.count() != seen && (seen = interrupts.count()) == 1 && interrupts.last() == SIGINT) {
            std::cerr << "vramscope-cli: stopping the program on " << host
                      << " (Ctrl-C again: leave it running and disconnect)\n";
            if (ssh.in() >= 0 && ::write(ssh.in(), "stop\n", 5) != 5) ssh.closeIn();
        } else if (seen >= 1 && (seen >= 2 || interrupts.last() != SIGINT)) {
            detached = true;
            break;
        }
        pollfd fds[] = {{ssh.out(), POLLIN, 0},
                        {ssh.err(), POLLIN, 0},
                        {local.listenFd, POLLIN, 0},
                        {local.conn, POLLIN, 0}};
        if (::poll(fds, 4, -1) < 0) continue; // EINTR: a Ctrl-C
        char buf[4096];
        if (fds[0].revents) {
            const ssize_t n = ::read(ssh.out(), buf, sizeof buf);
            if (n > 0)
                markers.take(buf, size_t(n), host);
            else if (n == 0 || errno != EINTR)
                ssh.closeOut();
        }
        if (fds[1].revents) ssh.readErr(true); // the program's output, and ssh's own messages
        if (fds[2].revents && ssh.out() >= 0) local.accept();
        if (fds[3].revents) {
            local.read();
            if (local.full) // said once: the connection and the listening socket are closed
                std::cerr << "vramscope-cli: the local copy " << terminalText(o.localCopy) << " stops at "
                          << MemoryBudget::describe(local.limit) << " (--max-memory); the recording on "
                          << host << " goes on\n";
        }
    }
    if (o.live.empty() && local.received == 0)
        ::unlink(o.localCopy.c_str()); // nothing came back: no empty file
    const std::string copy =
        !o.live.empty() || local.received == 0 ? "" : ", what arrived is in " + o.localCopy;
    if (detached) {
        std::cerr << "vramscope-cli: disconnected; the program goes on running on " << host << " (pid "
                  << markers.pid << "), recording into " << markers.output << copy << '\n';
        return 128 + interrupts.last(); // 130 for Ctrl-C
    }
    const int rc = ssh.wait();
    if (markers.exit < 0) {
        const std::string why = describeSshFailure(o.target, rc, ssh.errText()).message;
        if (!markers.started) throw std::runtime_error(why);
        throw std::runtime_error(why + " The program may still be running on " + host + " (pid " +
                                 markers.pid + ") and recording into " + markers.output + copy +
                                 " (readable up to its last "
                                 "complete chunk)");
    }
    std::cerr << "vramscope-cli: the program on " << host << " exited with status " << markers.exit
              << "; its recording is " << markers.output << " there" << copy << '\n';
    out.flush();
    return markers.exit;
}

} // namespace vs::cli
