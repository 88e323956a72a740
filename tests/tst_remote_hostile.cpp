// A hostile (or broken) host's answers are untrusted input (issue 47). The "host" here is a real
// sshd whose user's login shell is a fake program (SshServer's switchable shell): it ignores what it
// is asked and answers as an attacker would. Every answer is bounded in size and time, shown without
// raw control characters, and never becomes an ssh option or a local path; ssh's stdout and stderr
// are read together; a fetch stopped by Ctrl-C leaves no temporary file and no ssh behind.
#include "CliChild.h"
#include "SshServer.h"

#include "util/SshTarget.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <csignal>

using namespace vs;

namespace {
// AddressSanitizer slows the CLI, and its shadow memory and quarantine add to its peak: the bounds
// (2 s and 200 MiB for an endless answer) scale under it.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kSlower = 3;
constexpr long kMoreMiB = 256;
#else
constexpr double kSlower = 1;
constexpr long kMoreMiB = 0;
#endif

const QString kSample = QStringLiteral(VRAMSCOPE_SOURCE_DIR "/samples/recorded/leak_hook.vscap");

// The marker line the fetch scripts print before the file's bytes.
QString sizeLine(const QString& size) {
    return "printf 'VRAMSCOPE-REMOTE size=%s\\n' '" + size + "'\n";
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The ssh clients still running with this test's configuration (a fetch's child left behind).
int sshClientsOf(const QString& config) {
    int n = 0;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        const QByteArray cmdline = readAll("/proc/" + entry + "/cmdline");
        if (entry.toInt() > 0 && cmdline.startsWith(QByteArray("ssh\0", 4)) &&
            cmdline.contains(config.toUtf8()))
            ++n;
    }
    return n;
}
} // namespace

class TestRemoteHostile : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void init();
    void stderrFloodDoesNotDeadlock();
    void declaredSizeBoundsTheCopy();
    void endlessFileIsCutAtItsDeclaredSize();
    void impossibleSizeIsRefused_data();
    void impossibleSizeIsRefused();
    void endlessChatterIsBounded();
    void silenceIsGivenUpOn_data();
    void silenceIsGivenUpOn();
    void hostErrorReachesTheTerminalEscaped();
    void preparedDirectoryIsValidated_data();
    void preparedDirectoryIsValidated();
    void runOutputIsBoundedAndEscaped();
    void dotDotNameIsCopiedInside();
    void ctrlCDuringAFetchCleansUp();
    void sigtermDuringARunCleansUp();

  private:
    void host(const QString& script); // the next connections' "login shell"
    test::CliRun summary(const QString& path, int timeoutSeconds = 30);
    QString tmp() const { return dir_.filePath("tmp"); }
    SshServer server_;
    QTemporaryDir dir_;
};

void TestRemoteHostile::initTestCase() {
    if (SshServer::sshdPath().isEmpty()) QSKIP("sshd is not installed (apt-get install openssh-server)");
    if (SshServer::nssWrapperPath().isEmpty())
        QSKIP("libnss-wrapper is not installed (scripts/install-deps.sh --dev)");
    QVERIFY(dir_.isValid());
    QString why;
    QVERIFY2(server_.start({}, why, true), qPrintable(why));
    qputenv("VRAMSCOPE_SSH", server_.sshCommand().toLocal8Bit());
    qunsetenv("SSH_AUTH_SOCK");
    QVERIFY(QDir().mkpath(tmp()));
    qputenv("TMPDIR", QFile::encodeName(tmp())); // where the CLI's copies go
}

void TestRemoteHostile::init() {
    QDir(tmp()).removeRecursively(); // each case starts without a copy (one it leaves is a failure)
    QVERIFY(QDir().mkpath(tmp()));
}

void TestRemoteHostile::host(const QString& script) {
    QVERIFY(server_.setLoginScript(script));
}

test::CliRun TestRemoteHostile::summary(const QString& path, int timeoutSeconds) {
    const SshTarget target{{}, "vstest", 0, QFile::encodeName(path).toStdString()};
    return test::runCliMeasured(VRAMSCOPE_CLI, {"summary", QString::fromStdString(target.url())},
                                timeoutSeconds);
}

// 1 MB on stderr (a login banner, a noisy profile) before the file: read while the file comes.
void TestRemoteHostile::stderrFloodDoesNotDeadlock() {
    host("head -c 1000000 /dev/zero | tr '\\0' e >&2\n" +
         sizeLine(QString::number(QFileInfo(kSample).size())) + "cat '" + kSample + "'\n");
    const test::CliRun r = summary("/x.vscap", 20);
    QVERIFY2(r.rc == 0 && r.seconds < 5 * kSlower, r.summary().c_str());
}

// The host declares 10 bytes and sends a whole capture: only the 10 declared bytes are kept (a
// capture of 10 bytes is no capture).
void TestRemoteHostile::declaredSizeBoundsTheCopy() {
    host(sizeLine("10") + "cat '" + kSample + "'\n");
    const test::CliRun r = summary("/x.vscap");
    QVERIFY2(r.rc == 2, r.summary().c_str());
}

// ...and endless bytes after 10 declared ones end at once, with nothing left in TMPDIR.
void TestRemoteHostile::endlessFileIsCutAtItsDeclaredSize() {
    host(sizeLine("10") + "exec cat /dev/zero\n");
    const test::CliRun r = summary("/x.pickle", 10);
    QVERIFY2(r.rc == 2 && r.seconds < 2 * kSlower && r.peakRssMiB < 200 + kMoreMiB, r.summary().c_str());
    QVERIFY(QDir(tmp()).isEmpty());
}

void TestRemoteHostile::impossibleSizeIsRefused_data() {
    QTest::addColumn<QString>("size");
    for (const char* size : {"-5", "1e3", "99999999999999999999999", "12abc", "", "0x10"})
        QTest::newRow(size) << size;
}

// A size that is not a plain number in bounds is refused, naming the host; nothing is copied.
void TestRemoteHostile::impossibleSizeIsRefused() {
    QFETCH(QString, size);
    host(sizeLine(size) + "cat '" + kSample + "'\n");
    const test::CliRun r = summary("/x.vscap");
    QVERIFY2(r.rc == 2, r.summary().c_str());
    QVERIFY2(r.err.find("vstest") != std::string::npos && r.err.find("size") != std::string::npos,
             r.err.c_str());
    QVERIFY(QDir(tmp()).isEmpty());
}

// Endless output without a newline and without the marker: given up on after a bounded amount.
void TestRemoteHostile::endlessChatterIsBounded() {
    host("exec tr '\\0' x </dev/zero\n");
    const test::CliRun r = summary("/x.vscap", 10);
    QVERIFY2(r.rc == 2 && r.seconds < 2 * kSlower && r.peakRssMiB < 200 + kMoreMiB, r.summary().c_str());
}

void TestRemoteHostile::silenceIsGivenUpOn_data() {
    QTest::addColumn<QString>("answer");
    QTest::addColumn<QString>("says");
    QTest::newRow("no answer") << ""
                               << "vstest sent no file within 1 s (VRAMSCOPE_SSH_TIMEOUT)";
    QTest::newRow("stalled copy")
        << sizeLine("1000") + "head -c 10 /dev/zero\n"
        << "vstest stopped sending the file for 1 s (VRAMSCOPE_SSH_TIMEOUT), after 10 of "
           "its 1000 bytes";
}

// A host that says nothing, or stops in the middle of the file, is given up on after
// VRAMSCOPE_SSH_TIMEOUT seconds of silence: the copy and its ssh go.
void TestRemoteHostile::silenceIsGivenUpOn() {
    QFETCH(QString, answer);
    QFETCH(QString, says);
    host(answer + "exec sleep 60\n");
    qputenv("VRAMSCOPE_SSH_TIMEOUT", "1");
    const test::CliRun r = summary("/x.pickle", 20);
    qunsetenv("VRAMSCOPE_SSH_TIMEOUT");
    QVERIFY2(r.rc == 2 && r.seconds < 1 + 2 * kSlower, r.summary().c_str());
    QVERIFY2(r.err.find(says.toStdString()) != std::string::npos, r.err.c_str());
    QVERIFY(QDir(tmp()).isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(sshClientsOf(server_.dir()), 0, 2000);
}

// The host's own failure message, with terminal escapes in it: shown escaped, on one line.
void TestRemoteHostile::hostErrorReachesTheTerminalEscaped() {
    host("printf 'vramscope-remote: \\033]0;owned\\007\\033[2J\\rforged line\\n' >&2\nexit 66\n");
    const test::CliRun r = summary("/x.vscap");
    QCOMPARE(r.rc, 2);
    QVERIFY2(r.err.find('\x1b') == std::string::npos && r.err.find('\r') == std::string::npos &&
                 r.err.find('\a') == std::string::npos,
             r.err.c_str());
    QVERIFY2(r.err.find("\\x1b]0;owned") != std::string::npos, r.err.c_str());
}

void TestRemoteHostile::preparedDirectoryIsValidated_data() {
    QTest::addColumn<QString>("dir");
    QTest::newRow("a forward of its own") << "/tmp/x:9999";
    QTest::newRow("relative") << "tmp/x";
    QTest::newRow("dot-dot") << "/tmp/../etc";
    QTest::newRow("space option") << "/tmp/x -D 9999";
    QTest::newRow("too long") << "/" + QString(200, 'a');
}

// run --remote's first answer (the private directory, which becomes ssh's -R DIR/live.sock:...) is
// checked: anything but a plain absolute path ends the run, and no second connection is made.
void TestRemoteHostile::preparedDirectoryIsValidated() {
    QFETCH(QString, dir);
    const QString count = dir_.filePath("connections");
    QFile::remove(count);
    host("echo >>'" + count + "'\nprintf 'VRAMSCOPE-REMOTE dir=%s\\n' '" + dir + "'\n");
    const test::CliRun r = test::runCliMeasured(
        VRAMSCOPE_CLI, {"run", "--remote", "vstest", "-o", dir_.filePath("none.vscap"), "--", "./prog"});
    QVERIFY2(r.rc == 2, r.summary().c_str());
    QVERIFY2(r.err.find("private directory") != std::string::npos, r.err.c_str());
    QCOMPARE(readAll(count), QByteArray("\n")); // one connection: the answer went no further
}

// run --remote: a host that writes 64 MiB without a newline on stdout and escapes on stderr (the
// program's output) is held in bounded memory, and its output is shown escaped.
void TestRemoteHostile::runOutputIsBoundedAndEscaped() {
    const QString count = dir_.filePath("run-connections");
    host("if [ -s '" + count + "' ]; then\n" +
         "  printf 'VRAMSCOPE-REMOTE pid=1\\n'\n"
         "  head -c 67108864 /dev/zero | tr '\\0' x\n"
         "  printf 'program says \\033[2J\\033]0;owned\\007\\n' >&2\n"
         "  printf '\\nVRAMSCOPE-REMOTE exit=4\\n'\n"
         "else\n"
         "  echo >>'" +
         count +
         "'\n"
         "  d=$(mktemp -d)\n"
         "  printf 'VRAMSCOPE-REMOTE dir=%s\\n' \"$d\"\n"
         "fi\n");
    const test::CliRun r = test::runCliMeasured(
        VRAMSCOPE_CLI, {"run", "--remote", "vstest", "-o", dir_.filePath("run.vscap"), "--", "./prog"});
    QVERIFY2(r.rc == 4 && r.peakRssMiB < 100 + kMoreMiB, r.summary().c_str());
    QVERIFY2(r.err.find('\x1b') == std::string::npos && r.err.find("\\x1b[2J") != std::string::npos,
             r.err.c_str());
}

// A remote path whose last part is ".." still names a copy inside the private directory.
void TestRemoteHostile::dotDotNameIsCopiedInside() {
    host(sizeLine(QString::number(QFileInfo(kSample).size())) + "cat '" + kSample + "'\n");
    const test::CliRun r = summary("/x/..");
    QVERIFY2(r.rc == 0, r.summary().c_str());
    QVERIFY(QDir(tmp()).isEmpty()); // nothing was written beside the private directory either
}

// Ctrl-C while a file is copied: the CLI ends at once, its private copy and its ssh go with it.
void TestRemoteHostile::ctrlCDuringAFetchCleansUp() {
    host(sizeLine("1000000") + "head -c 1000 /dev/zero\nexec sleep 60\n");
    QProcess cli;
    cli.start(VRAMSCOPE_CLI, {"summary", "ssh://vstest/x.pickle"});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(tmp()).isEmpty() && sshClientsOf(server_.dir()) > 0, 20000);
    QTest::qWait(500); // the copy has begun
    QCOMPARE(::kill(pid_t(cli.processId()), SIGINT), 0);
    QVERIFY(cli.waitForFinished(int(2000 * kSlower)));
    QCOMPARE(cli.exitStatus(), QProcess::CrashExit); // by SIGINT, as a shell around it expects
    QCOMPARE(cli.exitCode(), SIGINT);
    QVERIFY2(QDir(tmp()).isEmpty(),
             qPrintable(QDir(tmp()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(' ')));
    QTRY_COMPARE_WITH_TIMEOUT(sshClientsOf(server_.dir()), 0, 2000);
}

// SIGTERM while run --remote waits on a program: the CLI disconnects (the program is left running,
// as a second Ctrl-C does), its forwarding directory and its ssh go, and it says so with 128 + 15.
void TestRemoteHostile::sigtermDuringARunCleansUp() {
    const QString count = dir_.filePath("term-connections");
    host("if [ -s '" + count + "' ]; then\n" +
         "  printf 'VRAMSCOPE-REMOTE pid=7\\nVRAMSCOPE-REMOTE output=2f78\\n'\n"
         "  exec sleep 60\n"
         "else\n"
         "  echo >>'" +
         count +
         "'\n"
         "  printf 'VRAMSCOPE-REMOTE dir=%s\\n' \"$(mktemp -d)\"\n"
         "fi\n");
    QProcess cli;
    cli.start(VRAMSCOPE_CLI,
              {"run", "--remote", "vstest", "-o", dir_.filePath("term.vscap"), "--", "./prog"});
    QVERIFY(cli.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT(
        (err += cli.readAllStandardError()).contains("recording on vstest (pid 7) into /x"), 20000);
    QVERIFY(!QDir(tmp()).isEmpty()); // the forwarded socket's private directory
    QCOMPARE(::kill(pid_t(cli.processId()), SIGTERM), 0);
    QVERIFY(cli.waitForFinished(int(2000 * kSlower)));
    QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
    QCOMPARE(cli.exitCode(), 128 + SIGTERM);
    err += cli.readAllStandardError();
    QVERIFY2(err.contains("disconnected; the program goes on running on vstest (pid 7)"), err.constData());
    QVERIFY(QDir(tmp()).isEmpty());
    QVERIFY(!QFile::exists(dir_.filePath("term.vscap"))); // nothing arrived: no empty copy
    QTRY_COMPARE_WITH_TIMEOUT(sshClientsOf(server_.dir()), 0, 2000);
}

QTEST_GUILESS_MAIN(TestRemoteHostile)
#include "tst_remote_hostile.moc"
