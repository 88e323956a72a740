#include "live/StartSsh.h"

#include "util/SshFailure.h"

#include <QCoreApplication>

namespace vs::ui {

void startSsh(QProcess* process, const std::vector<std::string>& argv) {
    QStringList args;
    for (size_t i = 1; i < argv.size(); ++i) args << QString::fromStdString(argv[i]);
    process->start(QString::fromStdString(argv[0]), args);
}

QString cannotRunSsh(const QProcess* process) {
    return QCoreApplication::translate(
               "vs::ui::StartSsh", "%1 cannot be run (%2): install OpenSSH's client, or set VRAMSCOPE_SSH")
        .arg(process->program(), process->errorString());
}

QString sshFailure(const SshTarget& target, int code, QProcess::ExitStatus status,
                   const QByteArray& stderrText) {
    const int exit = status == QProcess::NormalExit ? code : 255; // killed: the connection is gone
    return QString::fromStdString(
        describeSshFailure(target.destination(), exit, stderrText.toStdString()).message);
}

} // namespace vs::ui
