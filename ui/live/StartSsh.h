#pragma once
// The GUI's side of running ssh (core/util/SshCommand's command lines) in a QProcess, shared by
// Open Remote (RemoteFile) and Record on a Remote Machine (RemoteRun).
#include "util/SshTarget.h"

#include <QProcess>
#include <QString>

#include <string>
#include <vector>

namespace vs::ui {

// Starts ssh and writes `input` on its stdin (the script and its values, RemoteInput); stdin is
// then closed unless `keepIn` (run --remote's requests follow). A stderr that a hostile host fills
// is kept to its last 64 KB (stderrTail).
void startSsh(QProcess* process, const std::vector<std::string>& argv, const std::string& input,
              bool keepIn = false);
// What ssh wrote on stderr so far, its last 64 KB (startSsh keeps it as it comes).
QByteArray stderrTail(const QProcess* process);
// Why ssh could not be started at all (not installed, VRAMSCOPE_SSH wrong).
QString cannotRunSsh(const QProcess* process);
// Why the ssh command that just finished failed, in one sentence (SshFailure); `stderrText` is
// what it wrote on stderr.
QString sshFailure(const SshTarget& target, int code, QProcess::ExitStatus status,
                   const QByteArray& stderrText);

} // namespace vs::ui
