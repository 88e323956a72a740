#include "SshProcess.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace vs::cli {

namespace {
constexpr size_t kErrKept = 64 << 10;

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}
} // namespace

SshProcess::SshProcess(const std::vector<std::string>& argv, bool ownGroup) {
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
}

SshProcess::~SshProcess() {
    if (pid_ > 0) ::kill(pid_, SIGTERM), wait();
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
    if (echo) (void)!::write(2, buf, size_t(n));
    errTail_.append(buf, size_t(n));
    if (errTail_.size() > kErrKept) errTail_.erase(0, errTail_.size() - kErrKept);
    return true;
}

int SshProcess::wait() {
    closeFd(out_);
    while (readErr(false)) {
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

} // namespace vs::cli
