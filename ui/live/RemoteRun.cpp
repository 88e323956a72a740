#include "live/RemoteRun.h"

#include "live/StartSsh.h"

#include "util/SshCommand.h"

#include <QDateTime>

namespace vs::ui {

namespace {
constexpr qsizetype kLogKept = 64 << 10;
}

RemoteRun::RemoteRun(QObject* parent) : QObject(parent) {}

RemoteRun::~RemoteRun() {
    detach();
}

void RemoteRun::startSshIn(QProcess*& slot, const std::vector<std::string>& argv) {
    QProcess* p = slot = new QProcess(this);
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart) return;
        if (p == prepare_) prepare_ = nullptr; // no finished() follows
        if (p == run_) run_ = nullptr;
        p->deleteLater();
        emit failed(cannotRunSsh(p));
    });
    startSsh(p, argv);
}

void RemoteRun::start(const SshTarget& target, const RemoteProgram& program, const QString& localSocket) {
    (void)runScript(program, "/d",
                    "t"); // throws for a command line the recorders cannot run, before connecting
    detach();
    target_ = target, program_ = program, localSocket_ = localSocket;
    pid_.clear(), output_.clear(), log_.clear(), lines_.clear();
    exit_ = -1, detached_ = false;
    startSshIn(prepare_, sshArgv(target, prepareRunScript(program)));
    if (!prepare_) return;
    prepare_->closeWriteChannel();
    connect(prepare_, &QProcess::finished, this, &RemoteRun::onPrepared);
}

void RemoteRun::onPrepared(int code, QProcess::ExitStatus status) {
    QProcess* p = std::exchange(prepare_, nullptr);
    p->deleteLater();
    if (code != 0 || status != QProcess::NormalExit)
        return emit failed(sshFailure(target_, code, status, p->readAllStandardError()));
    QString dir;
    for (const QByteArray& line : p->readAllStandardOutput().split('\n'))
        if (const auto m = parseRemoteMarker(line.toStdString()); m && m->first == "dir")
            dir = QString::fromStdString(m->second);
    if (dir.isEmpty())
        return emit failed(tr("%1 answered without the private directory it should have made").arg(host()));
    const std::string forward = remoteSocketPath(dir.toStdString()) + ":" + localSocket_.toStdString();
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    startSshIn(run_, sshArgv(target_, runScript(program_, dir.toStdString(), stamp.toStdString()), forward));
    if (!run_) return;
    connect(run_, &QProcess::readyReadStandardOutput, this, &RemoteRun::onOutput);
    connect(run_, &QProcess::readyReadStandardError, this, [this] {
        log_ += QString::fromLocal8Bit(run_->readAllStandardError());
        if (log_.size() > kLogKept) log_.remove(0, log_.size() - kLogKept);
    });
    connect(run_, &QProcess::finished, this, &RemoteRun::onFinished);
}

void RemoteRun::onOutput() {
    lines_ += run_->readAllStandardOutput();
    for (qsizetype eol; (eol = lines_.indexOf('\n')) >= 0; lines_.remove(0, eol + 1)) {
        const auto m = parseRemoteMarker(lines_.left(eol).toStdString());
        if (!m) continue;
        const QString value = QString::fromStdString(m->second);
        if (m->first == "pid") pid_ = value;
        if (m->first == "output") output_ = value, emit started(output_);
        if (m->first == "exit") exit_ = value.toInt();
    }
}

void RemoteRun::onFinished(int code, QProcess::ExitStatus status) {
    onOutput();
    if (detached_) return;
    if (exit_ >= 0) return emit finished(exit_, output_);
    // ssh's reasons are the last lines of its stderr, after the program's output (kept in log_)
    QString why = sshFailure(target_, code, status, log_.right(4096).toLocal8Bit());
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
