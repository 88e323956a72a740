#pragma once
// One ssh child of the CLI with pipes to its stdin, stdout and stderr (posix_spawnp). What it writes
// on stderr is kept (the last 64 KB: enough for ssh's reasons, SshFailure) and may be passed on.
#include <string>
#include <sys/types.h>
#include <vector>

namespace vs::cli {

class SshProcess {
  public:
    // Throws std::runtime_error with one sentence when the program (ssh) cannot be started. With
    // `ownGroup`, a Ctrl-C at the terminal reaches only us (we decide what it means for ssh).
    explicit SshProcess(const std::vector<std::string>& argv, bool ownGroup = false);
    ~SshProcess(); // a child still running is ended (SIGTERM) and reaped
    SshProcess(const SshProcess&) = delete;
    SshProcess& operator=(const SshProcess&) = delete;

    int out() const { return out_; } // -1 once it reached its end
    int err() const { return err_; }
    int in() const { return in_; }
    void closeIn();
    void closeOut();
    // Reads what is ready on stderr (blocking once); false at its end. With `echo`, also to our stderr.
    bool readErr(bool echo);
    const std::string& errText() const { return errTail_; }
    // Closes stdout (the caller read it to its end, or stops caring) and waits for the exit:
    // its status, 128 + N for a signal.
    int wait();

  private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string errTail_;
};

} // namespace vs::cli
