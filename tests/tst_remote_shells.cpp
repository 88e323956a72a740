// What reaches another machine is data, whatever the user's login shell there (issue 47): ssh hands
// its command to that shell (`SHELL -c COMMAND`), and fish, tcsh or csh do not parse POSIX quoting.
// Against a real sshd whose user's login shell is fish, tcsh, csh, sh or bash (zsh too where
// installed; SshServer's switchable shell), paths and program words holding quotes, $, `, !, *,
// ( ), newlines, spaces, a leading '-', unicode, % and {} are sent by every CLI entry point (ssh://
// files, run --remote with --cd, --remote-output and the program's arguments): nothing of them runs
// as code (no "pwned" file appears), the right file and the right words arrive, and the login shell
// is only ever handed one constant command.
#include "CliChild.h"
#include "RemotePrograms.h"
#include "SshServer.h"

#include "util/SshCommand.h"
#include "util/SshTarget.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace vs;
constexpr const char* kRemoteCommand = "exec /bin/sh -c 'IFS= read -r s && eval \"$s\"'";

namespace {
const QString kSample = QStringLiteral(VRAMSCOPE_SOURCE_DIR "/samples/recorded/leak_hook.vscap");

// Each would create a file named "pwned" (in the home, where a login shell starts, or in the
// directory the program runs in) if any shell on the way parsed it as code.
const QStringList kHostileWords = {
    "a';touch pwned;#b",            // ends sh's and fish's quotes
    "a\";touch pwned;#b",           // ends a double quote
    "a$(touch pwned)b",             // command substitution in sh and fish 3.4+
    "a`touch pwned`b",              // command substitution in sh and csh
    "a\ntouch pwned\nb",            // a newline ends a csh/tcsh command, even inside quotes
    "a\\';touch pwned;#",           // fish reads \' inside '...' as a quote
    "a;touch pwned;b",              //
    "-x !1 *.* (y) %s {a,b} $HOME", // an option's dash, history, globs, a subshell, printf, braces
    "unicodé ✓ 😀  two  spaces ",    // unicode and spaces kept as they are
};

// A summary's JSON from its "format" on: without its "file" (the ssh:// address, or the local path).
std::string withoutFile(const std::string& json) {
    const size_t format = json.find("\"format\"");
    return format == std::string::npos ? json : json.substr(format);
}

// A name for a file or directory: a word without '/'.
QString asName(const QString& word, int i) {
    return QString::number(i) + "-" + QString(word).replace('/', '_');
}

// The Python program run on the host: writes its arguments and working directory where it runs.
const char* kArgsProgram = R"(import json, os, sys
with open("argv-out.json", "w") as f:
    json.dump({"args": sys.argv[1:], "cwd": os.getcwd()}, f)
)";
} // namespace

class TestRemoteShells : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void init();
    void remoteFilePathsAreData_data() { shells(); }
    void remoteFilePathsAreData();
    void runWordsAreData_data() { shells(); }
    void runWordsAreData();
    void theLoginShellIsHandedOneConstantCommand();

  private:
    void shells();
    void useShell(const QString& program);
    QStringList markers() const;
    bool pwned() const;
    SshServer server_;
    QTemporaryDir dir_;
};

void TestRemoteShells::initTestCase() {
    if (SshServer::sshdPath().isEmpty()) QSKIP("sshd is not installed (apt-get install openssh-server)");
    if (SshServer::nssWrapperPath().isEmpty())
        QSKIP("libnss-wrapper is not installed (scripts/install-deps.sh --dev)");
    QVERIFY(dir_.isValid());
    QString why;
    QVERIFY2(server_.start(remote_test::recorderEnvironment(), why, true), qPrintable(why));
    qputenv("VRAMSCOPE_SSH", server_.sshCommand().toLocal8Bit());
    qunsetenv("SSH_AUTH_SOCK");
    QFile program(dir_.filePath("args.py"));
    QVERIFY(program.open(QIODevice::WriteOnly));
    program.write(kArgsProgram);
}

void TestRemoteShells::init() {
    for (const QString& marker : markers()) QFile::remove(marker); // each case starts without one
}

void TestRemoteShells::shells() {
    QTest::addColumn<QString>("shell");
    for (const char* shell :
         {"/usr/bin/fish", "/usr/bin/tcsh", "/bin/sh", "/bin/bash", "/usr/bin/zsh", "/bin/csh"})
        QTest::newRow(QFileInfo(shell).fileName().toUtf8()) << QString(shell);
}

void TestRemoteShells::useShell(const QString& program) {
    if (!QFileInfo(program).isExecutable())
        QSKIP(qPrintable(program + " is not installed (install-deps.sh --dev installs fish and tcsh)"));
    QVERIFY(server_.setLoginShell(program));
}

// The "pwned" files an injection made: in the home, the test's directory or one below it.
QStringList TestRemoteShells::markers() const {
    QStringList found;
    QStringList places = {server_.home(), dir_.path()};
    for (const QString& sub : QDir(dir_.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        places << dir_.filePath(sub);
    for (const QString& where : places)
        if (QFile::exists(where + "/pwned")) found << where + "/pwned";
    return found;
}

bool TestRemoteShells::pwned() const {
    return !markers().isEmpty();
}

// `summary ssh://vstest/PATH` for files whose names hold every hostile word (a newline excepted: an
// ssh:// address refuses control characters): the file named is the one read.
void TestRemoteShells::remoteFilePathsAreData() {
    QFETCH(QString, shell);
    useShell(shell);
    const test::CliRun local = test::runCliMeasured(VRAMSCOPE_CLI, {"summary", kSample, "--json"});
    QCOMPARE(local.rc, 0);
    for (int i = 0; i < kHostileWords.size(); ++i) {
        if (kHostileWords[i].contains('\n')) continue;
        const QString path = dir_.filePath(asName(kHostileWords[i], i) + ".vscap");
        QFile::remove(path);
        QVERIFY(QFile::copy(kSample, path));
        const SshTarget target{{}, "vstest", 0, QFile::encodeName(path).toStdString()};
        const test::CliRun r =
            test::runCliMeasured(VRAMSCOPE_CLI, {"summary", QString::fromStdString(target.url()), "--json"});
        QVERIFY2(r.rc == 0, r.summary().c_str());
        QVERIFY2(!pwned(), qPrintable(kHostileWords[i]));
        QCOMPARE(withoutFile(r.out), withoutFile(local.out)); // that file's figures
    }
}

// run --remote with --cd into a directory, --remote-output and program arguments that hold every
// hostile word: the program sees exactly its words, runs where it was told, writes where it was told.
void TestRemoteShells::runWordsAreData() {
    QFETCH(QString, shell);
    useShell(shell);
    const QString name =
        asName("wd ';touch pwned;# \n`touch pwned` $(touch pwned) é {} % -", 0) + QFileInfo(shell).fileName();
    const QString workDir = dir_.filePath(name);
    QVERIFY(QDir().mkpath(workDir));
    QVERIFY(QFile::copy(dir_.filePath("args.py"), workDir + "/args.py"));
    const QString output = "-out ';touch pwned;#\n$(touch pwned) `x`.vscap";
    QStringList args = {"run",     "--remote", "vstest",          "-o",   dir_.filePath(name + ".copy.vscap"),
                        "--cd",    workDir,    "--remote-output", output, "--",
                        "python3", "args.py"};
    args += kHostileWords;
    const test::CliRun r = test::runCliMeasured(VRAMSCOPE_CLI, args, 120);
    QVERIFY2(r.rc == 0, r.summary().c_str());
    QVERIFY2(!pwned(), r.err.c_str());
    QFile result(workDir + "/argv-out.json");
    QVERIFY2(result.open(QIODevice::ReadOnly), r.summary().c_str());
    const QJsonObject seen = QJsonDocument::fromJson(result.readAll()).object();
    QCOMPARE(seen["cwd"].toString(), workDir);
    QCOMPARE(seen["args"].toArray().toVariantList(), QVariant(kHostileWords).toList());
    QVERIFY2(QFileInfo(workDir + "/" + output).size() > 0, r.summary().c_str()); // the recording, named so
}

// Whatever the entry point, the login shell gets the same command: no path or word of the user's.
void TestRemoteShells::theLoginShellIsHandedOneConstantCommand() {
    QVERIFY(server_.setLoggingShell());
    const QString path = dir_.filePath(asName(kHostileWords[0], 0) + "-logged.vscap");
    QVERIFY(QFile::copy(kSample, path));
    const SshTarget target{{}, "vstest", 0, QFile::encodeName(path).toStdString()};
    QCOMPARE(test::runCliMeasured(VRAMSCOPE_CLI, {"summary", QString::fromStdString(target.url())}).rc, 0);
    QStringList args = {"run",
                        "--remote",
                        "vstest",
                        "-o",
                        dir_.filePath("logged.copy.vscap"),
                        "--cd",
                        dir_.path(),
                        "--remote-output",
                        "logged ';x.vscap",
                        "--",
                        "python3",
                        "args.py"};
    const test::CliRun r = test::runCliMeasured(VRAMSCOPE_CLI, args + kHostileWords, 120);
    QVERIFY2(r.rc == 0, r.summary().c_str());
    const QList<QByteArray> commands = server_.loginCommands();
    QCOMPARE(commands.size(), 3); // the file; the run's preparation and the run
    for (const QByteArray& command : commands) QCOMPARE(command.toStdString(), std::string(kRemoteCommand));
}

QTEST_GUILESS_MAIN(TestRemoteShells)
#include "tst_remote_shells.moc"
