#include "SshProcess.h"

#include "util/TerminalText.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace vs::cli {

namespace {
constexpr size_t kErrKept = 64 << 10;
constexpr size_t kErrDrained = 16 << 20;          // what stderr may still bring once stdout ended
constexpr auto kGrace = std::chrono::seconds(10); // ...and how long ssh may take to end then

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}
} // namespace

SshProcess::SshProcess(const std::vector<std::string>& argv, const std::string& input, bool closeIn,
                       bool ownGroup) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("cannot make pipes for ssh: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (ownGroup) posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP), posix_spawnattr_setpgroup(&attr, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(in[0]), ::close(out[1]), ::close(err[1]);
    in_ = in[1], out_ = out[0], err_ = err[0];
    if (rc != 0) {
        closeFd(in_), closeFd(out_), closeFd(err_);
        pid_ = -1;
        throw std::runtime_error(argv[0] + " cannot be run (" + std::strerror(rc) +
                                 "): install OpenSSH's client, or set VRAMSCOPE_SSH");
    }
    ::signal(SIGPIPE, SIG_IGN); // a closed stdin is an error code for us, not our death
    writeInput(input);
    if (closeIn) closeFd(in_);
}

// The script and its values (at most about 1 MiB, RemoteInput): ssh takes them into its channel
// whether or not the host reads them yet. An ssh that ended early leaves the rest unwritten (EPIPE);
// its status says why.
void SshProcess::writeInput(const std::string& input) {
    for (size_t at = 0; at < input.size();) {
        const ssize_t w = ::write(in_, input.data() + at, input.size() - at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return closeFd(in_);
        at += size_t(w);
    }
}

SshProcess::~SshProcess() {
    stop();
    closeFd(in_), closeFd(out_), closeFd(err_);
}

void SshProcess::closeIn() {
    closeFd(in_);
}

void SshProcess::closeOut() {
    closeFd(out_);
}

bool SshProcess::readErr(bool echo) {
    if (err_ < 0) return false;
    char buf[4096];
    const ssize_t n = ::read(err_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return closeFd(err_), false;
    if (echo) {
        const std::string shown = terminalOutput({buf, size_t(n)}, echoCarry_);
        (void)!::write(2, shown.data(), shown.size());
    }
    errTail_.append(buf, size_t(n));
    errBytes_ += uint64_t(n);
    if (errTail_.size() > kErrKept) errTail_.erase(0, errTail_.size() - kErrKept);
    return true;
}

SshProcess::Pumped SshProcess::pump(const std::function<bool(std::string_view)>& take,
                                    const std::function<bool()>& goOn) {
    while (out_ >= 0) {
        if (!goOn()) return Pumped::Stopped;
        pollfd fds[] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
        if (::poll(fds, 2, 200) <= 0) continue; // a signal or a quiet moment: goOn() decides
        if (fds[1].revents) readErr(false);
        if (!fds[0].revents) continue;
        char buf[1 << 16];
        const ssize_t n = ::read(out_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return closeOut(), Pumped::End;
        if (!take({buf, size_t(n)})) return Pumped::Stopped;
    }
    return Pumped::End;
}

void SshProcess::stop() {
    if (pid_ > 0) ::kill(pid_, SIGTERM), wait();
}

int SshProcess::wait() {
    closeFd(out_);
    // stderr to its end, but a host that goes on writing there, or keeps the connection open
    // after its stdout ended, is cut off (the status is then the signal's).
    const auto deadline = std::chrono::steady_clock::now() + kGrace;
    const uint64_t start = errBytes_;
    for (pollfd fd{err_, POLLIN, 0}; err_ >= 0; fd.fd = err_) {
        if (std::chrono::steady_clock::now() > deadline || errBytes_ - start > kErrDrained) {
            ::kill(pid_, SIGKILL);
            break;
        }
        if (::poll(&fd, 1, 200) > 0) readErr(false);
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

} // namespace vs::cli
