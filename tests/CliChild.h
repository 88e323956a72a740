#pragma once
// Runs vramscope-cli in a child process and measures it: exit status, stdout, stderr, wall time and
// the child's own peak RSS (wait4's rusage), so that a reproducer can hold a command to a bound of
// time and memory. A run past `timeoutSeconds` is killed and reported, never waited for.
#include <QString>
#include <QStringList>
#include <QTemporaryFile>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace vs::test {

struct CliRun {
    int rc = -1; // exit status; 128 + signal when killed by one
    std::string out, err;
    double seconds = 0;
    long peakRssMiB = 0;
    bool timedOut = false;
    // One line for a failed QVERIFY2: what ran and how it ended.
    std::string summary() const {
        return "rc " + std::to_string(rc) + ", " + std::to_string(seconds) + " s, " +
               std::to_string(peakRssMiB) + " MiB" + (timedOut ? " (killed: too slow)" : "") +
               "; stderr: " + err;
    }
};

inline std::string readAll(QTemporaryFile& f) {
    f.seek(0);
    return f.readAll().toStdString();
}

inline CliRun runCliMeasured(const QString& cli, const QStringList& args, int timeoutSeconds = 60) {
    QTemporaryFile out, err;
    if (!out.open() || !err.open()) return {};
    std::vector<std::string> argv{cli.toStdString()};
    for (const QString& a : args) argv.push_back(a.toStdString());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    // The child's peak RSS counts what it shares with this process until it execs: give back the
    // heap the generators freed first, so that the figure is the command's own.
    ::malloc_trim(0);
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(int(out.handle()), 1);
        ::dup2(int(err.handle()), 2);
        ::alarm(unsigned(timeoutSeconds)); // SIGALRM ends a hang
        ::execv(cargv[0], cargv.data());
        ::_exit(127);
    }
    CliRun r;
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.peakRssMiB = ru.ru_maxrss / 1024;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.timedOut = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
    r.out = readAll(out);
    r.err = readAll(err);
    return r;
}

} // namespace vs::test
