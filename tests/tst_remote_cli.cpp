// vramscope-cli over the user's own ssh, against a real OpenSSH server on a loopback port
// (SshServer): summary and check of ssh:// files, run --remote with the stream forwarded back live,
// and each failure as one line: a refused host key, a refused login, a missing file, a missing
// recorder, a dropped connection (the part received kept and readable, the program left running).
#include "RemotePrograms.h"
#include "SshServer.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

#include <csignal>

namespace {
struct Result {
    int rc = -1;
    QString out, err;
};

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool alive(qint64 pid) { // running, not a zombie waiting for its parent
    const QByteArray stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype close = stat.lastIndexOf(')');
    return close > 0 && stat.mid(close + 2, 1) != "Z";
}

const QString kSample = QStringLiteral(VRAMSCOPE_SOURCE_DIR "/samples/recorded/leak_hook.vscap");
} // namespace

class TestRemoteCli : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void summaryOfARemoteFile();
    void checkOfARemoteFile();
    void refusedHostKey();
    void refusedLogin();
    void missingRemoteFile();
    void runRecordsOnTheHostLive();
    void missingRecorderIsNamed();
    void droppedConnectionKeepsWhatArrived();
    void firstCtrlCStopsTheProgram();
    void secondCtrlCLeavesItRunning();
    void plantedLogLinkIsRefused();
    void summarizeRanksConvertOfRemoteFiles();
    void remoteFolderIsRefusedAsSuch();

  private:
    QProcess* startLeaky(const QString& name, const QByteArray& program, const QString& stop);
    Result cli(const QStringList& args, const QMap<QString, QString>& extra = {}); // extra: environment
    QProcess* startCli(const QStringList& args, const QMap<QString, QString>& extra = {});
    QString url(const QString& host, const QString& path) const { return "ssh://" + host + path; }
    QString write(const QString& name, const QByteArray& text);
    SshServer server_;
    QTemporaryDir dir_;
};

void TestRemoteCli::initTestCase() {
    if (SshServer::sshdPath().isEmpty()) QSKIP("sshd is not installed (apt-get install openssh-server)");
    QString why;
    QVERIFY2(server_.start(remote_test::recorderEnvironment(), why), qPrintable(why));
    QVERIFY(dir_.isValid());
}

QProcess* TestRemoteCli::startCli(const QStringList& args, const QMap<QString, QString>& extra) {
    auto* p = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("VRAMSCOPE_SSH", server_.sshCommand());
    for (auto it = extra.begin(); it != extra.end(); ++it) env.insert(it.key(), it.value());
    env.remove("SSH_AUTH_SOCK");
    p->setProcessEnvironment(env);
    p->setWorkingDirectory(dir_.path());
    p->start(VRAMSCOPE_CLI, args);
    return p;
}

Result TestRemoteCli::cli(const QStringList& args, const QMap<QString, QString>& extra) {
    QProcess* p = startCli(args, extra);
    p->waitForFinished(120000);
    Result r{p->exitStatus() == QProcess::NormalExit ? p->exitCode() : -1,
             QString::fromUtf8(p->readAllStandardOutput()), QString::fromUtf8(p->readAllStandardError())};
    delete p;
    return r;
}

QString TestRemoteCli::write(const QString& name, const QByteArray& text) {
    QFile f(dir_.filePath(name));
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    return f.fileName();
}

void TestRemoteCli::summaryOfARemoteFile() {
    const Result local = cli({"summary", kSample, "--json"});
    const Result remote = cli({"summary", url("vstest", kSample), "--json"});
    QCOMPARE(remote.rc, 0);
    QCOMPARE(local.rc, 0);
    // The same figures; the file is named by its ssh:// address, not by the local copy's path.
    QVERIFY2(remote.out.contains("\"file\": \"" + url("vstest", kSample) + "\""), qPrintable(remote.out));
    const auto withoutFile = [](QString s) { return s.remove(QRegularExpression("\"file\": \"[^\"]*\"")); };
    QCOMPARE(withoutFile(remote.out), withoutFile(local.out));
    QVERIFY(!withoutFile(local.out).isEmpty());
}

void TestRemoteCli::checkOfARemoteFile() {
    for (const char* limit : {"1", "1000000000"}) {
        const Result local = cli({"check", kSample, "--max-growth", limit});
        const Result remote = cli({"check", url("vstest", kSample), "--max-growth", limit});
        QCOMPARE(remote.rc, local.rc);
        QVERIFY(remote.rc == 0 || remote.rc == 1);
    }
    QCOMPARE(cli({"check", url("vstest", kSample), "--max-growth", "1"}).rc, 1); // the sample leaks
}

void TestRemoteCli::refusedHostKey() {
    const Result r = cli({"summary", url("vstest-newkey", kSample)});
    QCOMPARE(r.rc, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("host key of vstest-newkey was refused"), qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
}

void TestRemoteCli::refusedLogin() {
    const Result r = cli({"summary", url("vstest-stranger", kSample)});
    QCOMPARE(r.rc, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("Logging in to vstest-stranger failed"), qPrintable(r.err));
}

void TestRemoteCli::missingRemoteFile() {
    const Result r = cli({"summary", url("vstest", dir_.filePath("absent.vscap"))});
    QCOMPARE(r.rc, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("cannot read " + dir_.filePath("absent.vscap")), qPrintable(r.err));
}

void TestRemoteCli::runRecordsOnTheHostLive() {
    write("leaky.py", remote_test::kLeakyProgram);
    const QString copy = dir_.filePath("copy.vscap");
    const Result r = cli({"run", "--remote", "vstest", "-o", copy, "--cd", dir_.path(), "--remote-output",
                          "kept.vscap", "--", "python3", "leaky.py"});
    QVERIFY2(r.rc == 3, qPrintable(r.err));                 // the program's own exit status
    QVERIFY2(r.err.contains("kept 20"), qPrintable(r.err)); // its output, passed on
    const QString kept = dir_.filePath("kept.vscap");
    QVERIFY2(r.err.contains("recording on vstest") && r.err.contains(kept + " (kept there)"),
             qPrintable(r.err));
    // What came back live through ssh -R and what stayed on the host hold the same 20 MiB leak.
    const Result local = cli({"summary", copy, "--json"}), there = cli({"summary", kept, "--json"});
    QCOMPARE(local.rc, 0);
    QCOMPARE(there.rc, 0);
    QVERIFY2(local.out.contains("\"final_allocated\": 20971520"), qPrintable(local.out));
    QVERIFY2(there.out.contains("\"final_allocated\": 20971520"), qPrintable(there.out));
}

void TestRemoteCli::missingRecorderIsNamed() {
    // An interpreter on the host that cannot import the recorder (-I: PYTHONPATH ignored).
    const QString python = write("python3", "#!/bin/sh\nexec python3 -I \"$@\"\n");
    QFile::setPermissions(python, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    const Result r =
        cli({"run", "--remote", "vstest", "-o", dir_.filePath("none.vscap"), "--", python, "x.py"});
    QCOMPARE(r.rc, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("the vramscope recorder is not installed for " + python), qPrintable(r.err));
    QVERIFY(!QFile::exists(dir_.filePath("none.vscap")));
}

void TestRemoteCli::droppedConnectionKeepsWhatArrived() {
    write("leaky.py", remote_test::kLeakyProgram);
    const QString copy = dir_.filePath("partial.vscap"), stop = dir_.filePath("stop-dropped");
    QProcess* p = startCli({"run", "--remote", "vstest", "-o", copy, "--cd", dir_.path(), "--remote-output",
                            "dropped.vscap", "--", "python3", "leaky.py", stop});
    // Events have come back live (the polling recorder flushes once a second)...
    QTRY_VERIFY_WITH_TIMEOUT(cli({"summary", copy}).rc == 0 &&
                                 !cli({"summary", copy, "--json"}).out.contains("\"events\": 0,"),
                             60000);
    QVERIFY(server_.dropConnections() > 0); // ...when the connection goes
    QVERIFY(p->waitForFinished(60000));
    const QString err = QString::fromUtf8(p->readAllStandardError());
    QCOMPARE(p->exitCode(), 2);
    const QString last = err.trimmed().split('\n').last();
    QVERIFY2(last.contains("The connection to vstest was lost"), qPrintable(err));
    QVERIFY2(last.contains("may still be running") && last.contains(copy), qPrintable(err));
    // The part received reads (up to its last complete chunk)...
    const Result partial = cli({"summary", copy, "--json"});
    QCOMPARE(partial.rc, 0);
    QVERIFY2(partial.out.contains("\"events\": ") && !partial.out.contains("\"events\": 0,"),
             qPrintable(partial.out));
    // ...and the program goes on on the host until it is done.
    const QRegularExpressionMatch pid = QRegularExpression("\\(pid (\\d+)\\)").match(last);
    QVERIFY(pid.hasMatch());
    QVERIFY(alive(pid.captured(1).toLongLong()));
    write("stop-dropped", "");
    QTRY_VERIFY_WITH_TIMEOUT(!alive(pid.captured(1).toLongLong()), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(cli({"summary", dir_.filePath("dropped.vscap")}).rc, 0, 30000);
    delete p;
}

// Starts `run --remote` with `program` (kLeakyProgram's shape: it allocates until `stop` exists)
// and returns once events have come back live.
QProcess* TestRemoteCli::startLeaky(const QString& name, const QByteArray& program, const QString& stop) {
    write(name + ".py", program);
    const QString copy = dir_.filePath(name + ".copy.vscap");
    QProcess* p = startCli({"run", "--remote", "vstest", "-o", copy, "--cd", dir_.path(), "--remote-output",
                            name + ".vscap", "--", "python3", name + ".py", stop});
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(cli({"summary", copy}).rc == 0 &&
                                     !cli({"summary", copy, "--json"}).out.contains("\"events\": 0,"),
                                 60000);
    }();
    return p;
}

// The first Ctrl-C stops the program on the host (SIGINT to its group): its recorder finishes the
// file there, and the CLI ends with the program's status.
void TestRemoteCli::firstCtrlCStopsTheProgram() {
    QProcess* p = startLeaky("interrupted", remote_test::kLeakyProgram, dir_.filePath("never"));
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(::kill(pid_t(p->processId()), SIGINT), 0);
    QVERIFY(p->waitForFinished(60000));
    const QString err = QString::fromUtf8(p->readAllStandardError());
    QVERIFY2(err.contains("stopping the program on vstest (Ctrl-C again: leave it running"), qPrintable(err));
    const QRegularExpressionMatch status = QRegularExpression("exited with status (\\d+)").match(err);
    QVERIFY2(status.hasMatch(), qPrintable(err));
    QCOMPARE(p->exitCode(), status.captured(1).toInt());
    QVERIFY(p->exitCode() != 0 && p->exitCode() != 3); // interrupted, not the program's own end
    // The host's file is whole: its end record was written by the recorder's stop.
    const Result kept = cli({"summary", dir_.filePath("interrupted.vscap"), "--json"});
    QCOMPARE(kept.rc, 0);
    QVERIFY2(!kept.out.contains("\"events\": 0,"), qPrintable(kept.out));
    delete p;
}

// A program that ignores SIGINT is not stopped by the first Ctrl-C; the second one disconnects,
// says where the program goes on recording, and leaves it running.
void TestRemoteCli::secondCtrlCLeavesItRunning() {
    const QByteArray stubborn = QByteArray("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n") +
                                remote_test::kLeakyProgram;
    const QString stop = dir_.filePath("stop-stubborn");
    QProcess* p = startLeaky("stubborn", stubborn, stop);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(::kill(pid_t(p->processId()), SIGINT), 0);
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += p->readAllStandardError()).contains("stopping the program"), 10000);
    QCOMPARE(::kill(pid_t(p->processId()), SIGINT), 0);
    QVERIFY(p->waitForFinished(30000));
    QCOMPARE(p->exitCode(), 130);
    err += p->readAllStandardError();
    const QString last = QString::fromUtf8(err).trimmed().split('\n').last();
    QVERIFY2(last.contains("disconnected; the program goes on running on vstest"), qPrintable(last));
    const QRegularExpressionMatch pid = QRegularExpression("\\(pid (\\d+)\\)").match(last);
    QVERIFY2(pid.hasMatch(), qPrintable(last));
    QVERIFY(alive(pid.captured(1).toLongLong()));
    write("stop-stubborn", "");
    QTRY_VERIFY_WITH_TIMEOUT(!alive(pid.captured(1).toLongLong()), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(cli({"summary", dir_.filePath("stubborn.vscap")}).rc, 0, 30000);
    delete p;
}

// Another user of the host plants OUTPUT.log as a link to one of our files in a shared directory:
// the run refuses to start rather than write the program's output through it.
void TestRemoteCli::plantedLogLinkIsRefused() {
    write("leaky.py", remote_test::kLeakyProgram);
    write("victim", "precious");
    QVERIFY(QFile::link(dir_.filePath("victim"), dir_.filePath("planted.vscap.log")));
    const Result r = cli({"run", "--remote", "vstest", "-o", dir_.filePath("planted.copy.vscap"), "--cd",
                          dir_.path(), "--remote-output", "planted.vscap", "--", "python3", "leaky.py"});
    QCOMPARE(r.rc, 2);
    QVERIFY2(r.err.contains(dir_.filePath("planted.vscap.log") + " already exists"), qPrintable(r.err));
    QCOMPARE(readAll(dir_.filePath("victim")), QByteArray("precious"));
}

// `summarize`, `ranks` and `convert` take ssh:// files as the help says every command does (issue 47:
// they refused them): the same figures as of the local files, the files named by their addresses.
void TestRemoteCli::summarizeRanksConvertOfRemoteFiles() {
    QStringList local, remote;
    for (const char* name : {"clean_train", "leak_autograd_ctx"}) {
        const QString to = dir_.filePath(QString("rank%1.vscap").arg(local.size()));
        QVERIFY(QFile::copy(QStringLiteral(VRAMSCOPE_SOURCE_DIR "/samples/recorded/%1.vscap").arg(name), to));
        local << to, remote << url("vstest", to);
    }
    const auto withoutFiles = [](QString s) { return s.remove(QRegularExpression("\"file\": \"[^\"]*\"")); };
    const Result ranksHere = cli(QStringList{"ranks", "--json"} + local);
    const Result ranksThere = cli(QStringList{"ranks", "--json"} + remote);
    QCOMPARE(ranksThere.rc, 0);
    QCOMPARE(withoutFiles(ranksThere.out), withoutFiles(ranksHere.out));
    QVERIFY2(ranksThere.out.contains("\"file\": \"" + remote[1] + "\""), qPrintable(ranksThere.out));

    const Result sum = cli({"summarize", remote[0], remote[1], "-o", dir_.filePath("sums")});
    QCOMPARE(sum.rc, 0);
    QCOMPARE(sum.out, dir_.filePath("sums/rank0.vscap.vsrank") + "\n" +
                          dir_.filePath("sums/rank1.vscap.vsrank") + "\n");
    const Result ofSums = cli({"ranks", "--json", dir_.filePath("sums")});
    QCOMPARE(ofSums.rc, 0);
    QCOMPARE(withoutFiles(ofSums.out), withoutFiles(ranksHere.out));
    QVERIFY2(ofSums.out.contains("\"file\": \"" + remote[0] + "\""), qPrintable(ofSums.out)); // the address

    // one copy on disk at a time: when the second is fetched the first is gone (an ssh that counts
    // the copies' folders in TMPDIR before it runs)
    const QString tmp = dir_.filePath("tmp"), counts = dir_.filePath("copies-seen");
    QVERIFY(QDir().mkpath(tmp));
    const QString counting =
        write("counting-ssh", "#!/bin/sh\nls -d \"$TMPDIR\"/vramscope-remote-* | wc -l >> " +
                                  counts.toUtf8() + "\nexec \"$@\"\n");
    QVERIFY(QFile::setPermissions(counting, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const Result oneAtATime =
        cli({"summarize", remote[0], remote[1], "-o", dir_.filePath("sums2")},
            {{"TMPDIR", tmp}, {"VRAMSCOPE_SSH", counting + " " + server_.sshCommand()}});
    QCOMPARE(oneAtATime.rc, 0);
    QCOMPARE(readAll(counts).simplified(), QByteArray("1 1")); // each fetch: its own folder only
    QVERIFY(QDir(tmp).isEmpty());

    const QString converted = dir_.filePath("converted.vscap");
    const Result conv = cli({"convert", remote[1], converted});
    QCOMPARE(conv.rc, 0);
    QCOMPARE(withoutFiles(cli({"summary", "--json", converted}).out),
             withoutFiles(cli({"summary", "--json", local[1]}).out));
    const Result toRemote = cli({"convert", local[1], remote[0] + ".out"});
    QCOMPARE(toRemote.rc, 2);
    QVERIFY2(toRemote.err.contains("give a local path"), qPrintable(toRemote.err));
}

// A FOLDER must be local (help, cli.md): an ssh:// folder given to ranks or summarize is refused in
// one line that says it is a folder, not "cannot read" as for a missing file (issue 47).
void TestRemoteCli::remoteFolderIsRefusedAsSuch() {
    const QString folder = dir_.filePath("rank-folder");
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(QFile::copy(kSample, folder + "/rank0.vscap"));
    for (const QStringList& args :
         {QStringList{"ranks", url("vstest", folder)},
          QStringList{"summarize", url("vstest", folder + "/"), "-o", dir_.filePath("s")}}) {
        const Result r = cli(args);
        QCOMPARE(r.rc, 2);
        QVERIFY2(r.err.contains("is a folder on this host: name its files one by one"), qPrintable(r.err));
    }
    const Result help = cli({"--help"});
    QVERIFY2(help.out.contains("a FOLDER must be local"), qPrintable(help.out));
}

QTEST_GUILESS_MAIN(TestRemoteCli)
#include "tst_remote_cli.moc"
