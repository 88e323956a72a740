#include "Interrupts.h"

#include <unistd.h>

namespace vs::cli {

namespace {
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
volatile std::sig_atomic_t caught = 0;
volatile std::sig_atomic_t lastSignal = 0;

void onSignal(int signal) {
    caught = caught + 1;
    lastSignal = signal;
}
} // namespace

Interrupts::Interrupts() {
    caught = 0;
    lastSignal = 0;
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &sa, &saved_[i]);
}

Interrupts::~Interrupts() {
    for (int i = 0; i < 3; ++i) ::sigaction(kSignals[i], &saved_[i], nullptr);
}

int Interrupts::count() const {
    return caught;
}

int Interrupts::last() const {
    return lastSignal;
}

void Interrupts::endBy(int signal) {
    ::signal(signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(signal);
    ::_exit(128 + signal); // not reached: the default action of these three ends the process
}

} // namespace vs::cli
