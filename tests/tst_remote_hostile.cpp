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
// A value as the remote scripts receive it (RemoteInput: every byte as \\NNN, one value a line).
QByteArray decodeOctal(const QByteArray& line) {
    QByteArray out;
    for (qsizetype at = 0; at + 3 < line.size() && line[at] == '\\'; at += 4)
        out += char(line.mid(at + 1, 3).toInt(nullptr, 8));
    return out;
}
// A fake host whose first connection prepares (answers a fresh directory, counted in `count`) and
// whose later ones, the run, do `run` (shell lines).
QString preparedThen(const QString& count, const QString& run) {
    return "if [ -s '" + count + "' ]; then\n" + run + "else\n  echo >>'" + count +
           "'\n  printf 'VRAMSCOPE-REMOTE dir=%s\\n' \"$(mktemp -d)\"\nfi\n";
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
    void copyOverMaxMemoryIsNotMade();
    void runCopyStopsAtMaxMemory();
    void programWordsKeepTheirOptions();
    void interruptWhilePreparingLeavesNothing_data();
    void interruptWhilePreparingLeavesNothing();

  private:
    void host(const QString& script); // the next connections' "login shell"
    test::CliRun summary(const QString& path, int timeoutSeconds = 30);
    QString tmp() const { return dir_.filePath("tmp"); }
    QString writeProgram(const QString& name, const QByteArray& text); // an executable file
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
    host(preparedThen(count, "  printf 'VRAMSCOPE-REMOTE pid=7\\nVRAMSCOPE-REMOTE output=2f78\\n'\n"
                             "  exec sleep 60\n"));
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

QString TestRemoteHostile::writeProgram(const QString& name, const QByteArray& text) {
    const QString path = dir_.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    f.close();
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

// A file the host declares larger than --max-memory is not copied at all (issue 47: the copy
// ignored --max-memory and was made whole, then refused by the load).
void TestRemoteHostile::copyOverMaxMemoryIsNotMade() {
    host(sizeLine("2097152") + "exec head -c 2097152 /dev/zero\n");
    const SshTarget target{{}, "vstest", 0, "/x.pickle"};
    const test::CliRun r = test::runCliMeasured(
        VRAMSCOPE_CLI, {"summary", "--max-memory", "1M", QString::fromStdString(target.url())}, 20);
    QVERIFY2(r.rc == 2, r.summary().c_str());
    QVERIFY2(r.err.find("vstest declared 2097152 bytes (2.00 MiB) for the file, more than --max-memory "
                        "lets a load take (1 MiB): not copied") != std::string::npos,
             r.err.c_str());
    QVERIFY(QDir(tmp()).isEmpty());
}

// run --remote: the live stream the host pushes into the forwarded socket (4 MiB here) is kept
// locally up to --max-memory and no further (issue 47: the local copy grew without bound); the
// run goes on to the program's end.
void TestRemoteHostile::runCopyStopsAtMaxMemory() {
    const QString count = dir_.filePath("stream-connections"), dirFile = dir_.filePath("stream-dir");
    host("if [ -s '" + count + "' ]; then\n" + "  d=$(cat '" + dirFile +
         "')\n"
         "  printf 'VRAMSCOPE-REMOTE pid=1\\n'\n"
         "  python3 - \"$d/live.sock\" <<'EOF'\n"
         "import socket, sys, time\n"
         "s = socket.socket(socket.AF_UNIX)\n"
         "for _ in range(200):\n"
         "    try:\n"
         "        s.connect(sys.argv[1]); break\n"
         "    except OSError:\n"
         "        time.sleep(0.05)\n"
         "try:\n"
         "    for _ in range(64): s.sendall(b'x' * 65536)\n"
         "except OSError:\n"
         "    pass\n"
         "EOF\n"
         "  printf 'VRAMSCOPE-REMOTE exit=0\\n'\n"
         "else\n"
         "  echo >>'" +
         count +
         "'\n"
         "  d=$(mktemp -d)\n"
         "  echo \"$d\" >'" +
         dirFile +
         "'\n"
         "  printf 'VRAMSCOPE-REMOTE dir=%s\\n' \"$d\"\n"
         "fi\n");
    const QString copy = dir_.filePath("stream.vscap");
    const test::CliRun r = test::runCliMeasured(
        VRAMSCOPE_CLI, {"run", "--max-memory", "1M", "--remote", "vstest", "-o", copy, "--", "./prog"}, 30);
    QVERIFY2(r.rc == 0, r.summary().c_str());
    QCOMPARE(QFileInfo(copy).size(), qint64(1) << 20);
    QVERIFY2(r.err.find("stops at 1 MiB (--max-memory); the recording on vstest goes on") !=
                 std::string::npos,
             r.err.c_str());
}

// The words after "--" are the program's, --max-memory and --level among them (issue 47: the CLI
// took them for itself, so the program never saw them).
void TestRemoteHostile::programWordsKeepTheirOptions() {
    const QString count = dir_.filePath("word-connections"), input = dir_.filePath("word-input");
    host(preparedThen(count, "  timeout 5 head -n 10 >'" + input +
                                 "'\n" // the script, then dir, output, work dir, count, 5 words
                                 "  printf 'VRAMSCOPE-REMOTE exit=0\\n'\n"));
    const test::CliRun r =
        test::runCliMeasured(VRAMSCOPE_CLI, {"run", "--remote", "vstest", "-o", dir_.filePath("words.vscap"),
                                             "--", "./prog", "--max-memory", "5G", "--level", "cuda"});
    QVERIFY2(r.rc == 0, r.summary().c_str());
    QList<QByteArray> values;
    for (const QByteArray& line : readAll(input).split('\n').mid(1)) values << decodeOctal(line);
    QVERIFY2(values.size() >= 9, readAll(input).constData());
    QCOMPARE(values.mid(4, 5), (QList<QByteArray>{"./prog", "--max-memory", "5G", "--level", "cuda"}));
}

void TestRemoteHostile::interruptWhilePreparingLeavesNothing_data() {
    QTest::addColumn<int>("signal");
    QTest::newRow("Ctrl-C") << int(SIGINT);
    QTest::newRow("SIGTERM") << int(SIGTERM);
}

// A signal while run --remote prepares the host (here a recorder check that takes 3 s, after the
// private directory was made there): the CLI ends by it at once, its ssh goes, and the host removes
// the directory it made (issue 47: the directory and ssh were left behind). The host here is a
// real sh running the real scripts, its TMPDIR a folder of the test's.
void TestRemoteHostile::interruptWhilePreparingLeavesNothing() {
    QFETCH(int, signal);
    const QString hostTmp = dir_.filePath("host-tmp");
    QDir(hostTmp).removeRecursively();
    QVERIFY(QDir().mkpath(hostTmp));
    QVERIFY(QDir().mkpath(dir_.filePath("bin")));
    const QString python = writeProgram("bin/python3", "#!/bin/sh\nexec sleep 3\n"); // its "import vramscope"
    QVERIFY(!python.isEmpty());
    host("TMPDIR='" + hostTmp + "'; export TMPDIR\nexec /bin/sh \"$@\"\n");
    QProcess cli;
    cli.start(VRAMSCOPE_CLI,
              {"run", "--remote", "vstest", "-o", dir_.filePath("prep.vscap"), "--", python, "train.py"});
    QVERIFY(cli.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(hostTmp).isEmpty(), 20000); // made; the recorder check runs
    QCOMPARE(::kill(pid_t(cli.processId()), signal), 0);
    QVERIFY(cli.waitForFinished(int(2000 * kSlower)));
    QCOMPARE(cli.exitStatus(), QProcess::CrashExit); // by the signal, as a shell around it expects
    QCOMPARE(cli.exitCode(), signal);
    QTRY_COMPARE_WITH_TIMEOUT(sshClientsOf(server_.dir()), 0, 2000);
    QTRY_VERIFY2_WITH_TIMEOUT(
        QDir(hostTmp).isEmpty(), // once the check ends, the host removes it
        qPrintable(QDir(hostTmp).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).join(' ')), 10000);
    QVERIFY(!QFile::exists(dir_.filePath("prep.vscap")));
}

QTEST_GUILESS_MAIN(TestRemoteHostile)
#include "tst_remote_hostile.moc"
