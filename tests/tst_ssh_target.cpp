// The pure parts of the remote side (core/util): ssh:// addresses and the names they may hold, the
// quoting of what reaches the remote shell (run by a real sh here), ssh's command line, and ssh's
// failures told apart.
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/SshFailure.h"
#include "util/SshTarget.h"

#include <QProcess>
#include <QtTest>

using namespace vs;

class TestSshTarget : public QObject {
    Q_OBJECT
  private slots:
    void parsesAddresses_data();
    void parsesAddresses();
    void refusesWhatSshCouldMisread_data();
    void refusesWhatSshCouldMisread();
    void quotingSurvivesTheShell();
    void sshCommandLine();
    void failuresAreToldApart_data();
    void failuresAreToldApart();
    void commandLinesTheRecordersCannotRun();
};

void TestSshTarget::parsesAddresses_data() {
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QString>("path");
    QTest::newRow("plain") << "ssh://gpu/runs/a.vscap"
                           << ""
                           << "gpu" << 0 << "/runs/a.vscap";
    QTest::newRow("user port") << "ssh://me@gpu.lab:2222/a.vscap"
                               << "me"
                               << "gpu.lab" << 2222 << "/a.vscap";
    QTest::newRow("home") << "ssh://gpu/~/runs/a.vscap"
                          << ""
                          << "gpu" << 0 << "~/runs/a.vscap";
    QTest::newRow("ipv6") << "ssh://[::1]:22/x.pickle"
                          << ""
                          << "::1" << 22 << "/x.pickle";
    QTest::newRow("escaped") << "ssh://gpu/my%20runs/it's.vscap"
                             << ""
                             << "gpu" << 0 << "/my runs/it's.vscap";
}

void TestSshTarget::parsesAddresses() {
    QFETCH(QString, url);
    QFETCH(QString, user);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(QString, path);
    std::string error;
    const auto t = parseSshUrl(url.toStdString(), error);
    QVERIFY2(t, error.c_str());
    QCOMPARE(QString::fromStdString(t->user), user);
    QCOMPARE(QString::fromStdString(t->host), host);
    QCOMPARE(t->port, port);
    QCOMPARE(QString::fromStdString(t->path), path);
    const auto again = parseSshUrl(t->url(), error); // url() gives back an address that parses the same
    QVERIFY(again);
    QCOMPARE(again->path, t->path);
    QCOMPARE(again->destination(), t->destination());
}

void TestSshTarget::refusesWhatSshCouldMisread_data() {
    QTest::addColumn<QString>("url");
    QTest::newRow("option as host") << "ssh://-oProxyCommand=x/a.vscap";
    QTest::newRow("option as user") << "ssh://-l@gpu/a.vscap";
    QTest::newRow("space in host") << "ssh://gpu x/a.vscap";
    QTest::newRow("no path") << "ssh://gpu";
    QTest::newRow("no host") << "ssh:///a.vscap";
    QTest::newRow("bad port") << "ssh://gpu:99999/a.vscap";
    QTest::newRow("newline in path") << "ssh://gpu/a%0A.vscap";
    QTest::newRow("bad escape") << "ssh://gpu/a%zz";
    QTest::newRow("not ssh") << "http://gpu/a.vscap";
}

void TestSshTarget::refusesWhatSshCouldMisread() {
    QFETCH(QString, url);
    std::string error;
    QVERIFY(!parseSshUrl(url.toStdString(), error));
    QVERIFY(!error.empty());
}

void TestSshTarget::quotingSurvivesTheShell() {
    const std::string nasty = "it's $(touch /tmp/x) `id` \"q\" \\ ; & | *";
    QProcess sh;
    sh.start("sh", {"-c", QString::fromStdString("printf %s " + shellQuote(nasty))});
    QVERIFY(sh.waitForFinished());
    QCOMPARE(sh.readAllStandardOutput().toStdString(), nasty);
    // A ~/ path expands to the home, the rest stays literal.
    QProcess home;
    home.start("sh", {"-c", QString::fromStdString("HOME=/h; printf %s " + shellPath("~/a b'$x"))});
    QVERIFY(home.waitForFinished());
    QCOMPARE(home.readAllStandardOutput(), QByteArray("/h/a b'$x"));
    QCOMPARE(shellLine({"a &", "b", "c"}), std::string("a & b; c"));
}

void TestSshTarget::sshCommandLine() {
    qunsetenv("VRAMSCOPE_SSH");
    SshTarget t{"me", "gpu", 2222, "/a.vscap"};
    const auto argv = sshArgv(t, "echo hi", "/r/live.sock:/l/live.sock");
    QCOMPARE(argv.front(), std::string("ssh"));
    const auto at = [&](const std::string& w) {
        return std::find(argv.begin(), argv.end(), w) - argv.begin();
    };
    QVERIFY(at("BatchMode=yes") < at("--")); // never a prompt: a GUI has no terminal
    QCOMPARE(argv[size_t(at("-p") + 1)], std::string("2222"));
    QCOMPARE(argv[size_t(at("-l") + 1)], std::string("me"));
    QCOMPARE(argv[size_t(at("-R") + 1)], std::string("/r/live.sock:/l/live.sock"));
    QVERIFY(at("ExitOnForwardFailure=yes") < at("--"));
    QCOMPARE(argv[size_t(at("--") + 1)], std::string("gpu")); // the host after --: never an option
    QCOMPARE(argv.back(), std::string("sh -c 'echo hi'"));
    qputenv("VRAMSCOPE_SSH", "/opt/ssh -F /x/config");
    const auto custom = sshArgv(t, "true");
    QCOMPARE(custom[0], std::string("/opt/ssh"));
    QCOMPARE(custom[2], std::string("/x/config"));
    qunsetenv("VRAMSCOPE_SSH");
}

void TestSshTarget::failuresAreToldApart_data() {
    QTest::addColumn<int>("exit");
    QTest::addColumn<QString>("err");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("says");
    using K = SshFailure::Kind;
    QTest::newRow("unknown host key") << 255
                                      << "No ED25519 host key is known for gpu and you have requested strict "
                                         "checking.\nHost key verification failed.\n"
                                      << int(K::HostKey) << "host key of gpu was refused";
    QTest::newRow("changed host key") << 255 << "@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\n"
                                      << int(K::HostKey) << "host key";
    QTest::newRow("login refused") << 255 << "me@gpu: Permission denied (publickey).\n"
                                   << int(K::Authentication) << "Logging in to gpu failed";
    QTest::newRow("no such host") << 255 << "ssh: Could not resolve hostname gpu: Name or service not known\n"
                                  << int(K::Connect)
                                  << "Cannot connect to gpu: ssh: Could not resolve hostname";
    QTest::newRow("refused port") << 255 << "ssh: connect to host gpu port 22: Connection refused\n"
                                  << int(K::Connect) << "Cannot connect to gpu";
    QTest::newRow("dropped") << 255 << "training step 3\nConnection to gpu closed by remote host.\n"
                             << int(K::Dropped)
                             << "The connection to gpu was lost (Connection to gpu closed by remote host.)";
    QTest::newRow("no forwarding")
        << 255 << "Error: remote port forwarding failed for listen path /tmp/v/live.sock\n"
        << int(K::Forwarding) << "refused to forward the live socket";
    QTest::newRow("our script") << 67
                                << "vramscope-remote: the vramscope recorder is not installed for python3\n"
                                << int(K::Remote) << "gpu: the vramscope recorder is not installed";
    QTest::newRow("remote command") << 1 << "cat: x: Permission denied\n"
                                    << int(K::Remote)
                                    << "The command on gpu failed (exit status 1): cat: x: Permission denied";
}

void TestSshTarget::failuresAreToldApart() {
    QFETCH(int, exit);
    QFETCH(QString, err);
    QFETCH(int, kind);
    QFETCH(QString, says);
    const SshFailure f = describeSshFailure("gpu", exit, err.toStdString());
    QCOMPARE(int(f.kind), kind);
    QVERIFY2(QString::fromStdString(f.message).contains(says), f.message.c_str());
    QVERIFY(f.message.find('\n') == std::string::npos);
}

void TestSshTarget::commandLinesTheRecordersCannotRun() {
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{"python", "-u", "t.py"}, {}, {}}, "/d", "t"));
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{"python3"}, {}, {}}, "/d", "t"));
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{}, {}, {}}, "/d", "t"));
    QVERIFY(runsUnderPythonRecorder({{"/opt/conda/bin/python3.11", "t.py"}, {}, {}}));
    QVERIFY(!runsUnderPythonRecorder({{"./train_cuda"}, {}, {}}));
    QVERIFY(!runsUnderPythonRecorder({{"pythonista"}, {}, {}}));
    const std::string module = runScript({{"python", "-m", "pkg.train", "--lr", "1"}, {}, {}}, "/d", "t");
    QVERIFY(module.find("record -o \"$out\" --live \"$sock\" -m 'pkg.train' -- '--lr' '1'") !=
            std::string::npos);
}

QTEST_GUILESS_MAIN(TestSshTarget)
#include "tst_ssh_target.moc"
