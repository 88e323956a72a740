// The pure parts of the remote side (core/util): ssh:// addresses and the names they may hold, the
// values a fixed script reads from stdin (decoded by real sh, dash and bash here), ssh's command
// line, the host's answers checked, and ssh's failures told apart.
#include "util/RemoteAnswer.h"
#include "util/RemoteScripts.h"
#include "util/SshCommand.h"
#include "util/SshFailure.h"
#include "util/SshTarget.h"
#include "util/TerminalText.h"

#include <QFileInfo>
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
    void valuesArriveAsBytes_data();
    void valuesArriveAsBytes();
    void valuesThatCannotBeSent();
    void sshCommandLine();
    void hostAnswersAreChecked();
    void programOutputIsEscapedAcrossPieces();
    void failuresAreToldApart_data();
    void failuresAreToldApart();
    void hintsKeepThePort();
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
    QCOMPARE(shellLine({"a &", "b", "c"}), std::string("a & b; c"));
}

void TestSshTarget::valuesArriveAsBytes_data() {
    QTest::addColumn<QString>("shell");
    for (const char* shell : {"/bin/sh", "/bin/dash", "/bin/bash"})
        if (QFileInfo::exists(shell)) QTest::newRow(shell) << QString(shell);
}

// kRemoteCommand's /bin/sh reads the script's line, then the script reads its values: every byte
// but NUL arrives as it was, none runs, and what follows the values is left for the script.
void TestSshTarget::valuesArriveAsBytes() {
    QFETCH(QString, shell);
    const std::vector<std::string> values = {"",
                                             "plain",
                                             "it's $(touch /tmp/x) `id` \"q\" \\ ; & | * ! % {} ( )",
                                             "a\nb\n",
                                             "\n",
                                             "-n",
                                             "\\101\\n",
                                             "unicodé ✓ \xff\x01\x7f",
                                             "  spaces  "};
    RemoteScript s{shellLine({kReadValue, "for i in 1 2 3 4 5 6 7 8 9; do val; printf '%s|' \"$v\"; done",
                              "IFS= read -r rest; printf '%s' \"$rest\""}),
                   values};
    QProcess sh;
    sh.start(shell, {"-c", "IFS= read -r s && eval \"$s\""});
    sh.write(QByteArray::fromStdString(remoteInput(s) + "after the values\n"));
    sh.closeWriteChannel();
    QVERIFY(sh.waitForFinished());
    std::string expected;
    for (const auto& v : values) expected += v + "|";
    QCOMPARE(sh.readAllStandardOutput().toStdString(), expected + "after the values");
    QCOMPARE(sh.exitCode(), 0);
    // The line the login shell gets holds nothing that fish, tcsh or nushell read differently.
    const std::string command = kRemoteCommand;
    QVERIFY(command.find_first_of("\\\n!`") == std::string::npos);
    QCOMPARE(std::count(command.begin(), command.end(), '\''), 2);
}

void TestSshTarget::valuesThatCannotBeSent() {
    QVERIFY_THROWS_EXCEPTION(RemoteValueError, remoteInput({"true", {std::string("a\0b", 3)}}));
    QVERIFY_THROWS_EXCEPTION(RemoteValueError, remoteInput({"true", {std::string(kMaxValueBytes + 1, 'a')}}));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, remoteInput({"a\nb", {}}));
    // Each value is one line of digits and backslashes: inert in every shell.
    const std::string input = remoteInput({"s", {"x;\n'"}});
    QCOMPARE(input, std::string("s\n\\170\\073\\012\\047\n"));
}

void TestSshTarget::sshCommandLine() {
    qunsetenv("VRAMSCOPE_SSH");
    SshTarget t{"me", "gpu", 2222, "/a.vscap"};
    const auto argv = sshArgv(t, "/r/live.sock:/l/live.sock");
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
    QCOMPARE(argv.back(), std::string(kRemoteCommand)); // the same whatever runs: the script is on stdin
    QCOMPARE(sshArgv({"me", "gpu", 0, "/it's;$(x)\n"}).back(), std::string(kRemoteCommand));
    qputenv("VRAMSCOPE_SSH", "/opt/ssh -F /x/config");
    const auto custom = sshArgv(t);
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
    const SshFailure f = describeSshFailure({{}, "gpu", 0, {}}, exit, err.toStdString());
    QCOMPARE(int(f.kind), kind);
    QVERIFY2(QString::fromStdString(f.message).contains(says), f.message.c_str());
    QVERIFY(f.message.find('\n') == std::string::npos);
}

// ssh://root@127.0.0.1:2298/... is reached with `ssh -p 2298 root@127.0.0.1`: so say the hints.
void TestSshTarget::hintsKeepThePort() {
    const SshTarget t{"root", "127.0.0.1", 2298, "/a.vscap"};
    QVERIFY(describeSshFailure(t, 255, "Host key verification failed.\n")
                .message.find("`ssh -p 2298 root@127.0.0.1`") != std::string::npos);
    QVERIFY(describeSshFailure(t, 255, "root@127.0.0.1: Permission denied (publickey).\n")
                .message.find("`ssh -o BatchMode=yes -p 2298 root@127.0.0.1 true`") != std::string::npos);
    // The host's own words are quoted without their control characters.
    const std::string hostile = describeSshFailure(t, 1, "\x1b]0;owned\x07\x1b[2J\n").message;
    QVERIFY2(hostile.find('\x1b') == std::string::npos && hostile.find("\\x1b]0;owned") != std::string::npos,
             hostile.c_str());
}

void TestSshTarget::commandLinesTheRecordersCannotRun() {
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{"python", "-u", "t.py"}, {}, {}}, "/d", "t"));
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{"python3"}, {}, {}}, "/d", "t"));
    QVERIFY_THROWS_EXCEPTION(RemoteProgramError, runScript({{}, {}, {}}, "/d", "t"));
    QVERIFY(runsUnderPythonRecorder({{"/opt/conda/bin/python3.11", "t.py"}, {}, {}}));
    QVERIFY(!runsUnderPythonRecorder({{"./train_cuda"}, {}, {}}));
    QVERIFY(!runsUnderPythonRecorder({{"pythonista"}, {}, {}}));
    const RemoteScript module = runScript({{"python", "-m", "pkg.train", "--lr", "1"}, {}, {}}, "/d", "t");
    QVERIFY(module.script.find("record -o \"$out\" --live \"$sock\" -m \"$mod\" -- \"$@\"") !=
            std::string::npos);
    // No word of the user's is in the script: they are its values (dir, output, work dir, count, words).
    QVERIFY(module.script.find("pkg.train") == std::string::npos);
    const std::vector<std::string> values = {"/d", "vramscope-t.vscap", "",     "5", "python",
                                             "-m", "pkg.train",         "--lr", "1"};
    QCOMPARE(module.values, values);
}

void TestSshTarget::hostAnswersAreChecked() {
    QCOMPARE(parseRemoteSize("123", 1000), std::optional<uint64_t>(123));
    for (const char* bad : {"", "-5", "1e3", "0x10", "12abc", " 1", "99999999999999999999999"})
        QVERIFY2(!parseRemoteSize(bad, uint64_t(1) << 40), bad);
    QVERIFY(!parseRemoteSize("1001", 1000));
    QVERIFY(isPlainRemoteDir("/tmp/vramscope-AbC_12.x"));
    for (const char* bad : {"", "/", "tmp/x", "/tmp/x:9999", "/tmp/../etc", "/tmp/./x", "/tmp//x", "/tmp/x/",
                            "/tmp/x -R 1", "/tmp/x\n"})
        QVERIFY2(!isPlainRemoteDir(bad), bad);
    QVERIFY(!isPlainRemoteDir("/" + std::string(100, 'a'))); // DIR/live.sock would not fit sun_path
    QCOMPARE(decodeRemoteHex("2f610a"), std::optional<std::string>("/a\n"));
    for (const char* bad : {"2f6", "zz", "2F"}) QVERIFY2(!decodeRemoteHex(bad), bad);
    QVERIFY(!decodeRemoteHex(std::string(10, 'a'), 4));
    QCOMPARE(parseRemoteNumber("255", 255), std::optional<long>(255));
    QVERIFY(!parseRemoteNumber("256", 255));
}

// A remote program's output passed on: lines and tabs kept, an escape sequence shown, and a C1
// control split between two reads (UTF-8 C2 9B, a CSI) caught all the same.
void TestSshTarget::programOutputIsEscapedAcrossPieces() {
    std::string carry;
    QCOMPARE(terminalOutput("a\tb\n\x1b[2J\r", carry), std::string("a\tb\n\\x1b[2J\\x0d"));
    QCOMPARE(terminalOutput("x\xc2", carry), std::string("x"));
    QCOMPARE(terminalOutput("\x9b"
                            "31m",
                            carry),
             std::string("\\x9b31m"));
    QCOMPARE(terminalOutput("\xc3\xa9", carry), std::string("\xc3\xa9")); // é passes
}

QTEST_GUILESS_MAIN(TestSshTarget)
#include "tst_ssh_target.moc"
