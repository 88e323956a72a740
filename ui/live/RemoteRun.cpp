#include "live/RemoteRun.h"

#include "live/StartSsh.h"

#include "util/RemoteAnswer.h"
#include "util/SshCommand.h"
#include "util/TerminalText.h"

#include <QDateTime>

namespace vs::ui {

namespace {
constexpr qsizetype kMaxAnswer = 64 << 10; // a marker line, or a login script's chatter

bool holdsDirMarker(const QByteArray& lines) {
    const QList<QByteArray> split = lines.split('\n');
    for (qsizetype i = 0; i + 1 < split.size(); ++i) // the last piece is no whole line yet
        if (const auto m = parseRemoteMarker(split[i].toStdString()); m && m->first == "dir") return true;
    return false;
}
} // namespace

RemoteRun::RemoteRun(QObject* parent) : QObject(parent) {}

RemoteRun::~RemoteRun() {
    detach();
}

void RemoteRun::startSshIn(QProcess*& slot, const std::vector<std::string>& argv, const RemoteScript& script,
                           bool keepIn) {
    QProcess* p = slot = new QProcess(this);
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        if (p == prepare_) prepare_ = nullptr; // no finished() follows
        if (p == run_) run_ = nullptr;
        p->deleteLater();
        emit failed(cannotRunSsh(p));
    });
    startSsh(p, argv, remoteInput(script), keepIn);
}

void RemoteRun::start(const SshTarget& target, const RemoteProgram& program, const QString& localSocket) {
    // throws for a command line the recorders cannot run, or words that cannot be sent, before connecting
    (void)remoteInput(runScript(program, "/d", "t"));
    detach();
    target_ = target, program_ = program, localSocket_ = localSocket;
    pid_.clear(), output_.clear(), log_.clear(), lines_.clear();
    exit_ = -1, detached_ = keptDir_ = false;
    // stdin stays open for the answer "keep": the host removes its directory when the viewer goes
    // (closed, cancelled) before that
    startSshIn(prepare_, sshArgv(target), prepareRunScript(program), true);
    if (!prepare_) return;
    connect(prepare_, &QProcess::readyReadStandardOutput, this, [this] {
        lines_ += prepare_->readAllStandardOutput();
        if (lines_.size() > kMaxAnswer) return prepare_->kill(); // no answer of ours is that long
        if (!keptDir_ && (keptDir_ = holdsDirMarker(lines_)))
            prepare_->write(kKeepPreparedDir.data(), qint64(kKeepPreparedDir.size())),
                prepare_->closeWriteChannel();
    });
    connect(prepare_, &QProcess::finished, this, &RemoteRun::onPrepared);
}

void RemoteRun::onPrepared(int code, QProcess::ExitStatus status) {
    QProcess* p = std::exchange(prepare_, nullptr);
    p->deleteLater();
    if (code != 0 || status != QProcess::NormalExit)
        return emit failed(sshFailure(target_, code, status, stderrTail(p)));
    std::optional<std::string> dir;
    for (const QByteArray& line : std::exchange(lines_, {}).split('\n'))
        if (const auto m = parseRemoteMarker(line.toStdString()); m && m->first == "dir") dir = m->second;
    if (!dir)
        return emit failed(tr("%1 answered without the private directory it should have made").arg(host()));
    if (!isPlainRemoteDir(*dir)) // it becomes part of ssh's -R option
        return emit failed(tr("%1 answered with a private directory that is not a plain absolute path (%2)")
                               .arg(host(), QString::fromStdString(terminalText(dir->substr(0, 120)))));
    const std::string forward = remoteSocketPath(*dir) + ":" + localSocket_.toStdString();
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    startSshIn(run_, sshArgv(target_, forward), runScript(program_, *dir, stamp.toStdString()), true);
    if (!run_) return;
    connect(run_, &QProcess::readyReadStandardOutput, this, &RemoteRun::onOutput);
    connect(run_, &QProcess::readyReadStandardError, this, [this] { // after startSsh's tail is kept
        std::string carry; // the whole tail again: no piece to carry over
        log_ = QString::fromStdString(terminalOutput(stderrTail(run_).toStdString(), carry));
    });
    connect(run_, &QProcess::finished, this, &RemoteRun::onFinished);
}

// The run script's markers, each checked (the host may be hostile); a line longer than kMaxAnswer
// is no marker: dropped as it comes.
void RemoteRun::onOutput() {
    lines_ += run_->readAllStandardOutput();
    for (qsizetype eol; (eol = lines_.indexOf('\n')) >= 0; lines_.remove(0, eol + 1)) {
        const auto m = parseRemoteMarker(lines_.left(eol).toStdString());
        if (!m) continue;
        if (m->first == "pid")
            if (const auto p = parseRemoteNumber(m->second, 1L << 30)) pid_ = QString::number(*p);
        if (m->first == "output") {
            const auto path = decodeRemoteHex(m->second);
            output_ = path ? QString::fromStdString(terminalText(*path)) : QStringLiteral("?");
            emit started(output_);
        }
        if (m->first == "exit")
            if (const auto e = parseRemoteNumber(m->second, 255)) exit_ = int(*e);
    }
    if (lines_.size() > kMaxAnswer) lines_.clear();
}

void RemoteRun::onFinished(int code, QProcess::ExitStatus status) {
    onOutput();
    if (detached_) return;
    if (exit_ >= 0) return emit finished(exit_, output_);
    // ssh's reasons are the last lines of its stderr, after the program's output (kept in log_)
    QString why = sshFailure(target_, code, status, stderrTail(run_).right(4096));
    if (!pid_.isEmpty())
        why += ' ' + tr("The program may still be running on %1 (pid %2), recording into %3.")
                         .arg(host(), pid_, output_);
    emit failed(why);
}

void RemoteRun::stop() {
    if (run_ && run_->state() == QProcess::Running)
        run_->write("stop\n"), run_->waitForBytesWritten(2000); // delivered even when detach() follows
}

void RemoteRun::detach() {
    detached_ = true;
    for (QProcess* p : {prepare_, run_}) {
        if (!p) continue;
        p->disconnect(this);
        p->kill(); // the ssh client only: the program runs in its own session on the host
        p->waitForFinished(2000);
        p->deleteLater();
    }
    prepare_ = run_ = nullptr;
}

} // namespace vs::ui
