// LiveController's remote side: File > Open Remote (RemoteFile, followed like a launched program's
// file) and Capture > Record on a Remote Machine (RemoteRun, streaming into the listening socket).
#include "live/LiveController.h"

#include "live/LiveSession.h"
#include "live/OpenRemoteDialog.h"
#include "live/RecordRemoteDialog.h"
#include "live/RemoteFile.h"
#include "live/RemoteRun.h"
#include "util/Format.h"

#include <QMessageBox>
#include <QProgressDialog>
#include <QPushButton>
#include <QWidget>

namespace vs::ui {

namespace {
QString bytesText(qint64 n) {
    return QString::fromStdString(humanBytes(n));
}
} // namespace

void LiveController::connectRemote() {
    const auto closeProgress = [this] {
        if (progress_) progress_->deleteLater(), progress_ = nullptr;
    };
    connect(remote_, &RemoteFile::progress, this, &LiveController::onRemoteProgress);
    connect(remote_, &RemoteFile::ended, this, [this, closeProgress](const QString& text) {
        closeProgress();
        refresh();
        emit status(text);
        updateActions();
    });
    connect(remote_, &RemoteFile::failed, this, [this, closeProgress](const QString& message) {
        closeProgress();
        refresh(); // what arrived stays shown
        const qsizetype kept = remote_->bytes().size();
        // the status bar said "Following …" or "Reading …": it must not go on saying so (issue 47)
        emit status(kept ? tr("The connection to %1 was lost: %2 shown, no longer followed")
                               .arg(remote_->url(), bytesText(kept))
                         : tr("Could not read %1").arg(remote_->url()));
        emit failed(tr("Remote capture"),
                    kept ? message + ' ' +
                               tr("What arrived (%1) is shown and can be saved with Capture > Save Live "
                                  "Session As.")
                                   .arg(bytesText(kept))
                         : message);
        updateActions();
    });
    connect(remote_, &RemoteFile::copied, this, [this, closeProgress](const QString& path) {
        closeProgress();
        emit openCopy(path, remote_->url());
    });
    connect(remoteRun_, &RemoteRun::started, this, [this](const QString& output) {
        emit status(tr("Recording on %1 into %2 (kept there); the view follows it live")
                        .arg(remoteRun_->host(), output));
    });
    connect(remoteRun_, &RemoteRun::finished, this, [this](int code, const QString& output) {
        refresh();
        emit status(tr("The program on %1 exited with status %2; its recording is %3 there")
                        .arg(remoteRun_->host())
                        .arg(code)
                        .arg(output));
    });
    connect(remoteRun_, &RemoteRun::failed, this, [this](const QString& message) {
        refresh();
        // not "Recording on HOST …; the view follows it live" any more (issue 47)
        emit status(tr("The recording on %1 is no longer followed: %2").arg(remoteRun_->host(), message));
        emit failed(tr("Remote recording"), message);
    });
}

void LiveController::askOpenRemote() {
    if (const auto target = OpenRemoteDialog::ask(window_)) openRemote(*target);
}

void LiveController::openRemote(const SshTarget& target) {
    session_->stop(); // the view follows the remote file now
    source_ = Source::Remote;
    resetLive();
    remote_->open(target);
    timer_.start();
    if (progress_) progress_->deleteLater();
    progress_ =
        new QProgressDialog(tr("Connecting to %1\u2026").arg(QString::fromStdString(target.destination())),
                            tr("Cancel"), 0, 0, window_);
    progress_->setWindowTitle(tr("Open Remote Capture"));
    progress_->setMinimumDuration(300);
    progress_->setAutoClose(false), progress_->setAutoReset(false);
    connect(progress_, &QProgressDialog::canceled, remote_, &RemoteFile::cancel);
    emit status(tr("Reading %1 through ssh").arg(remote_->url()));
    updateActions();
}

void LiveController::onRemoteProgress(qint64 received, qint64 total) {
    if (!progress_) return;
    if (total > 0)
        progress_->setRange(0, 1000),
            progress_->setValue(int(std::min<qint64>(received, total) * 1000 / total));
    progress_->setLabelText(
        tr("Reading %1\n%2 of %3").arg(remote_->url(), bytesText(received), bytesText(total)));
    if (remote_->following() && total >= 0 &&
        received >= total) { // caught up: what comes now is being written
        progress_->deleteLater(), progress_ = nullptr;
        emit status(tr("Following %1: the file is still being written on the host").arg(remote_->url()));
    }
}

void LiveController::askRecordRemote() {
    if (const auto request = RecordRemoteDialog::ask(window_)) recordRemote(request->first, request->second);
}

bool LiveController::recordRemote(const SshTarget& target, const RemoteProgram& program) {
    if (remoteRun_->running()) {
        emit failed(tr("Remote recording"),
                    tr("A program on %1 is being recorded: stop it first").arg(remoteRun_->host()));
        return false;
    }
    if ((source_ != Source::Socket || !session_->isListening()) && !listen()) return false;
    try {
        remoteRun_->start(target, program, session_->socketPath());
    } catch (const std::invalid_argument& e) { // a line the recorders cannot run, words that cannot be sent
        emit failed(tr("Remote recording"), QString::fromStdString(e.what()));
        return false;
    }
    emit status(tr("Connecting to %1\u2026").arg(QString::fromStdString(target.destination())));
    return true;
}

bool LiveController::confirmClose() {
    if (!remoteRun_->running() || !remoteRun_->programStarted()) return true;
    QMessageBox box(
        QMessageBox::Question, tr("A program is running on %1").arg(remoteRun_->host()),
        tr("The program is still running on %1 (pid %2), recording into %3 there.\n\nStop it, or leave "
           "it running? Its recording goes on either way until it ends; open it later with File > "
           "Open Remote.")
            .arg(remoteRun_->host(), remoteRun_->remotePid(), remoteRun_->remoteOutput()),
        QMessageBox::Cancel, window_);
    QPushButton* stop = box.addButton(tr("&Stop the Program"), QMessageBox::DestructiveRole);
    QPushButton* leave = box.addButton(tr("&Leave It Running"), QMessageBox::AcceptRole);
    box.setDefaultButton(leave);
    box.exec();
    if (box.clickedButton() == stop)
        remoteRun_->stop();
    else if (box.clickedButton() != leave)
        return false;
    remoteRun_->detach();
    return true;
}

} // namespace vs::ui
