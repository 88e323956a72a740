#include "live/StartSsh.h"

#include "util/SshFailure.h"

#include <QCoreApplication>
#include <QVariant>

namespace vs::ui {

namespace {
constexpr qsizetype kErrKept = 64 << 10;
constexpr const char* kTail = "vramscopeStderrTail";
} // namespace

void startSsh(QProcess* process, const std::vector<std::string>& argv, const std::string& input,
              bool keepIn) {
    QStringList args;
    for (size_t i = 1; i < argv.size(); ++i) args << QString::fromStdString(argv[i]);
    QObject::connect(process, &QProcess::readyReadStandardError, process, [process] {
        QByteArray tail = process->property(kTail).toByteArray() + process->readAllStandardError();
        process->setProperty(kTail, tail.right(kErrKept));
    });
    process->start(QString::fromStdString(argv[0]), args);
    process->write(input.data(), qint64(input.size()));
    if (!keepIn) process->closeWriteChannel(); // after what was written has gone
}

QByteArray stderrTail(const QProcess* process) {
    return process->property(kTail).toByteArray();
}

QString cannotRunSsh(const QProcess* process) {
    return QCoreApplication::translate(
               "vs::ui::StartSsh", "%1 cannot be run (%2): install OpenSSH's client, or set VRAMSCOPE_SSH")
        .arg(process->program(), process->errorString());
}

QString sshFailure(const SshTarget& target, int code, QProcess::ExitStatus status,
                   const QByteArray& stderrText) {
    const int exit = status == QProcess::NormalExit ? code : 255; // killed: the connection is gone
    return QString::fromStdString(describeSshFailure(target, exit, stderrText.toStdString()).message);
}

} // namespace vs::ui
