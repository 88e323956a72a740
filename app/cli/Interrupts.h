#pragma once
// Ctrl-C (SIGINT), SIGTERM and SIGHUP while the CLI talks to a host: noted instead of ending the
// process at once, so that what it made (a private temporary directory, an ssh child) goes first;
// then it ends by the same signal (a shell loop around the CLI sees the Ctrl-C). One at a time.
#include <csignal>

namespace vs::cli {

class Interrupts {
  public:
    Interrupts();  // installs the handlers (no SA_RESTART: a waiting poll() returns at once)
    ~Interrupts(); // restores what was there
    Interrupts(const Interrupts&) = delete;
    Interrupts& operator=(const Interrupts&) = delete;

    int count() const; // signals caught so far
    int last() const;  // the last one's number, 0 before any
    // Ends the process by `signal` as if it had not been caught (after the caller cleaned up).
    [[noreturn]] static void endBy(int signal);

  private:
    struct sigaction saved_[3];
};

} // namespace vs::cli
