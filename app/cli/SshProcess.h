#pragma once
// One ssh child of the CLI with pipes to its stdin, stdout and stderr (posix_spawnp). Its stdout and
// stderr are read together (a host that writes much on stderr must not stall its stdout); what it
// writes on stderr is kept (the last 64 KB: enough for ssh's reasons, SshFailure) and may be passed
// on, its control characters escaped (the host's output is untrusted).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace vs::cli {

class SshProcess {
  public:
    // Throws std::runtime_error with one sentence when the program (ssh) cannot be started. With
    // `ownGroup`, a Ctrl-C at the terminal reaches only us (we decide what it means for ssh).
    // `input` is written on its stdin first (the script and its values, RemoteInput); stdin stays
    // open unless `closeIn`.
    SshProcess(const std::vector<std::string>& argv, const std::string& input, bool closeIn,
               bool ownGroup = false);
    ~SshProcess(); // a child still running is ended (SIGTERM) and reaped
    SshProcess(const SshProcess&) = delete;
    SshProcess& operator=(const SshProcess&) = delete;

    int out() const { return out_; } // -1 once it reached its end
    int err() const { return err_; }
    int in() const { return in_; }
    void closeIn();
    void closeOut();
    // Reads what is ready on stderr (blocking once); false at its end. With `echo`, also to our
    // stderr, escaped.
    bool readErr(bool echo);
    const std::string& errText() const { return errTail_; }

    enum class Pumped { End, Stopped };
    // Reads stdout into `take` (false: enough) and stderr into errText() together, until stdout
    // ends or `take` or `goOn` (asked a few times a second: a signal, a deadline) says to stop.
    Pumped pump(const std::function<bool(std::string_view)>& take, const std::function<bool()>& goOn);
    // Closes stdout (the caller read it to its end, or stops caring) and waits for the exit:
    // its status, 128 + N for a signal.
    int wait();
    // Ends it (SIGTERM) and reaps it: the caller has what it needs, or gives up.
    void stop();

  private:
    void writeInput(const std::string& input);
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1;
    std::string errTail_, echoCarry_;
    uint64_t errBytes_ = 0; // read on stderr so far
};

} // namespace vs::cli
