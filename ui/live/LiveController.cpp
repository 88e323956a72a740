#include "live/LiveController.h"

#include "common/Icons.h"
#include "util/AgentPath.h"
#include "util/PrivatePath.h"

#include "analysis/CaptureAnalysis.h"
#include "live/FileFollower.h"
#include "live/LiveSession.h"
#include "live/RemoteFile.h"
#include "live/RemoteRun.h"
#include "load/LiveCapture.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QVBoxLayout>

#include <unistd.h>

namespace vs::ui {

namespace {
constexpr int kRefreshMs = 250; // with the recorder's 100 ms flushes: well under 0.5 s end to end

// The launched program's file: created here, empty and 0600, only when nothing (not even a symlink)
// is at `output`; the agent then writes into this file. False with `why` otherwise.
bool createOutput(const QString& output, QString& why) {
    std::string error;
    const int fd = createExclusive(QFile::encodeName(output).toStdString(), error);
    if (fd < 0) return why = QString::fromLocal8Bit(error.c_str()), false;
    ::close(fd);
    return true;
}
} // namespace

LiveController::LiveController(QWidget* window, Show show)
    : QObject(window), window_(window), show_(std::move(show)), session_(new LiveSession(this)),
      follower_(new FileFollower(this)), remote_(new RemoteFile(this)), remoteRun_(new RemoteRun(this)) {
    timer_.setInterval(kRefreshMs);
    connect(&timer_, &QTimer::timeout, this, &LiveController::refresh);
    connect(session_, &LiveSession::statusChanged, this, &LiveController::status);
    connect(session_, &LiveSession::statusChanged, this, &LiveController::updateActions);
    connect(follower_, &FileFollower::statusChanged, this, &LiveController::status);
    connectRemote();
    resetLive();
}

LiveController::~LiveController() = default; // jobs_ waits for the update in flight

void LiveController::addActions(QMenu* menu) {
    listenAct_ = menu->addAction(tr("&Listen for a Live Recording\u2026"), QKeySequence(Qt::CTRL | Qt::Key_L),
                                 this, [this] {
                                     if (listen()) showCommand();
                                 });
    icons::set(listenAct_, QStringLiteral("listen"), window_->palette());
    listenAct_->setToolTip(
        tr("Open a private socket that a program recorded with the vramscope agent streams to"));
    stopAct_ = menu->addAction(tr("S&top Listening"), this, &LiveController::stopListening);
    freezeAct_ = menu->addAction(tr("&Freeze Live View"), QKeySequence(Qt::Key_F9), this,
                                 [this](bool on) { setFrozen(on); });
    freezeAct_->setCheckable(true);
    freezeAct_->setToolTip(tr("Stop updating the view to inspect it; data keeps arriving in the background"));
    saveAct_ = menu->addAction(
        tr("&Save Live Session As\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
            const QString p = QFileDialog::getSaveFileName(
                window_, tr("Save live session"),
                QDir(QSettings().value(QStringLiteral("lastDir"), QDir::homePath()).toString())
                    .filePath(QStringLiteral("live.vscap")), // not the working directory
                tr("vramscope recordings (*.vscap)"));
            if (!p.isEmpty() && !save(p))
                QMessageBox::warning(window_, tr("Save failed"), tr("Cannot write %1").arg(p));
        });
    retentionAct_ =
        menu->addAction(tr("Collect &Retention Graph Now"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
            if (session_->requestRetention())
                emit status(
                    tr("Asked the program for a retention graph: it pauses while its heap is walked"));
        });
    retentionAct_->setToolTip(
        tr("Which Python objects keep the GPU memory alive, collected now in the running program"));
    menu->addSeparator();
    launchAct_ = menu->addAction(tr("Launch &Program\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
                                 this, &LiveController::askAndLaunch);
    icons::set(launchAct_, QStringLiteral("launch"), window_->palette());
    launchAct_->setToolTip(tr("Run any CUDA program with the CUPTI agent and follow its device memory live"));
    remoteAct_ =
        menu->addAction(tr("Record on a &Remote Machine\u2026"), this, &LiveController::askRecordRemote);
    remoteAct_->setToolTip(
        tr("Run a program on another host through your ssh, under the recorder, and follow it "
           "live here; its recording stays on the host"));
    updateActions();
}

QString LiveController::agentLibrary() {
    return QString::fromStdString(cuptiAgentPath()); // beside the binary, or where it is installed
}

void LiveController::askAndLaunch() {
    bool ok = false;
    QSettings settings;
    const QString line = QInputDialog::getText(
        window_, tr("Launch a CUDA program"), tr("Command line (the program runs with the CUPTI agent):"),
        QLineEdit::Normal, settings.value(QStringLiteral("launch/commandLine")).toString(), &ok);
    const QStringList words = QProcess::splitCommand(line);
    if (!ok || words.isEmpty()) return;
    settings.setValue(QStringLiteral("launch/commandLine"), line); // offered again next time
    // A fresh private directory (mkdtemp, 0700): a name in the shared temporary directory could be
    // planted by another user (a symlink to one of our files) before the agent writes to it.
    QString dir;
    try {
        dir = QString::fromStdString(makePrivateTempDir(QDir::tempPath().toStdString(), "vramscope-launch-"));
    } catch (const std::exception& e) {
        QMessageBox::warning(window_, tr("Cannot launch"), QString::fromStdString(e.what()));
        return;
    }
    launchDir_ = dir;
    launch(
        words.front(), words.mid(1),
        QDir(dir).filePath(
            QStringLiteral("launch-%1.vscap").arg(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"))));
}

// A program that recorded nothing leaves no empty file (nor the directory made for it).
void LiveController::removeEmptyOutput(const QString& output) {
    if (QFileInfo(output).size() > 0) return;
    QFile::remove(output);
    if (!launchDir_.isEmpty() && QFileInfo(output).absolutePath() == launchDir_) QDir().rmdir(launchDir_);
}

bool LiveController::launch(const QString& program, const QStringList& arguments, const QString& output) {
    if (!QFile::exists(agentLibrary())) {
        QMessageBox::warning(window_, tr("No CUPTI agent"),
                             tr("%1 was not found: it is built when the CUDA toolkit's CUPTI is installed "
                                "(or set VRAMSCOPE_CUPTI_LIB).")
                                 .arg(agentLibrary()));
        return false;
    }
    QString why;
    if (!createOutput(output, why)) {
        QMessageBox::warning(window_, tr("Cannot launch"), why);
        return false;
    }
    if (process_) process_->kill(), process_->waitForFinished(2000), process_->deleteLater();
    process_ = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("CUDA_INJECTION64_PATH"), agentLibrary());
    env.insert(QStringLiteral("VRAMSCOPE_OUTPUT"), output);
    process_->setProcessEnvironment(env);
    process_->setProcessChannelMode(QProcess::ForwardedChannels);
    connect(process_, &QProcess::finished, this, [this](int code) {
        follower_->stop();
        refresh();
        removeEmptyOutput(follower_->path());
        if (QFile::exists(follower_->path()))
            emit status(tr("The program exited with status %1; its recording is %2")
                            .arg(code)
                            .arg(follower_->path()));
        else
            emit status(
                tr("The program exited with status %1 without a CUDA call: nothing was recorded").arg(code));
    });
    connect(process_, &QProcess::errorOccurred, this, [this, program](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) emit status(tr("Cannot start %1").arg(program));
    });
    source_ = Source::File;
    resetLive();
    follower_->follow(output);
    timer_.start();
    process_->start(program, arguments);
    emit status(tr("Running %1 with the CUPTI agent, following %2").arg(program, output));
    return true;
}

QByteArray LiveController::currentBytes() const {
    switch (source_) {
    case Source::File:
        return follower_->bytes();
    case Source::Remote:
        return remote_->bytes();
    case Source::Socket:
        break;
    }
    return session_->bytes();
}

QString LiveController::sourceLabel() const {
    switch (source_) {
    case Source::File:
        return follower_->path();
    case Source::Remote:
        return remote_->url();
    case Source::Socket:
        break;
    }
    return remoteRun_->running() ? tr("%1 on %2").arg(remoteRun_->remoteOutput(), remoteRun_->host())
                                 : session_->socketPath();
}

void LiveController::updateActions() {
    if (!listenAct_) return;
    const bool on = session_->isListening();
    stopAct_->setEnabled(on);
    retentionAct_->setEnabled(session_->connected());
    const bool following = source_ != Source::Socket;
    const bool any = following ? !currentBytes().isEmpty() : session_->byteCount() > 0;
    freezeAct_->setEnabled(on || following || any);
    saveAct_->setEnabled(any);
}

bool LiveController::listen(const QString& path) {
    source_ = Source::Socket;
    if (!session_->listen(path.isEmpty() ? LiveSession::defaultSocketPath() : path)) {
        QMessageBox::warning(window_, tr("Cannot listen"), session_->errorString());
        return false;
    }
    resetLive();
    timer_.start();
    updateActions();
    return true;
}

void LiveController::stopListening() {
    session_->stop();
    timer_.stop();
    refresh(); // show the last data
    emit status(tr("Stopped listening"));
    updateActions();
}

void LiveController::setFrozen(bool frozen) {
    frozen_ = frozen;
    if (freezeAct_) freezeAct_->setChecked(frozen);
    emit status(frozen ? tr("Live view frozen (data keeps arriving)") : tr("Live view follows the program"));
    if (!frozen) showLatest(), refresh();
}

void LiveController::resetLive() {
    // a job of the old session must not deliver into the new one (it holds its own LiveCapture)
    jobs_.cancel(JobKey::LiveUpdate);
    jobs_.waitFor(JobKey::LiveUpdate); // and the next refresh starts at once
    live_ = std::make_shared<LiveCapture>();
    fedBytes_ = 0;
    generation_ = session_->generation();
    latest_.reset();
    appendsSinceShown_ = false; // the next snapshot is another capture: shown whole
}

void LiveController::showLatest() {
    if (!latest_ || latest_ == shown_) return;
    const bool grown = appendsSinceShown_ && shown_ && extend_ && extend_(latest_, shown_);
    if (!grown) show_(tr("live: %1").arg(sourceLabel()), latest_);
    shown_ = latest_;
    appendsSinceShown_ = true;
}

void LiveController::refresh() {
    if (frozen_ || jobs_.busy(JobKey::LiveUpdate)) return;
    if (source_ == Source::Socket && session_->generation() != generation_)
        resetLive(); // another program connected
    // Only the bytes not yet given to the session's analysis travel to the worker.
    const QByteArray fresh = source_ == Source::Socket   ? session_->bytesFrom(fedBytes_)
                             : source_ == Source::Remote ? remote_->bytesFrom(fedBytes_)
                                                         : follower_->bytes().mid(fedBytes_);
    if (fresh.isEmpty()) return;
    fedBytes_ += fresh.size();
    jobs_.run<Update>(
        JobKey::LiveUpdate, this,
        [live = live_, fresh](const JobControl&) {
            const auto a =
                live->append({reinterpret_cast<const uint8_t*>(fresh.constData()), size_t(fresh.size())});
            return Update{a, live->analysis().incremental()};
        },
        [this](const Update& u) { onUpdate(u); },
        [this](const QString& message) { // the session validated these bytes: start over next time
            emit status(tr("Live data could not be read: %1").arg(message));
            resetLive();
        });
    updateActions();
}

void LiveController::onUpdate(const Update& u) {
    if (!u.analysis) return;
    appendsSinceShown_ = appendsSinceShown_ && u.appended;
    latest_ = u.analysis;
    if (!frozen_) showLatest();
}

void LiveController::waitForRefresh() {
    refresh();
    jobs_.waitFor(JobKey::LiveUpdate);
}

bool LiveController::save(const QString& path) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return false;
    f.write(currentBytes());
    return f.commit();
}

void LiveController::showCommand() {
    QDialog d(window_);
    d.setWindowTitle(tr("Listening for a live recording"));
    auto* layout = new QVBoxLayout(&d);
    layout->addWidget(new QLabel(
        tr("Run your program with the vramscope agent (<code>pip install ./capture/python</code>):"), &d));
    auto* cmd = new QLineEdit(session_->command(), &d);
    cmd->setReadOnly(true);
    cmd->setMinimumWidth(cmd->fontMetrics().horizontalAdvance(cmd->text()) + 24);
    layout->addWidget(cmd);
    layout->addWidget(new QLabel(tr("The socket is private to your user. The timeline follows the program; "
                                    "F9 freezes it, Ctrl+Shift+S saves the session."),
                                 &d));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &d);
    QPushButton* copy = buttons->addButton(tr("&Copy Command"), QDialogButtonBox::ActionRole);
    connect(copy, &QPushButton::clicked, &d, [cmd] { QApplication::clipboard()->setText(cmd->text()); });
    connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
    layout->addWidget(buttons);
    d.exec();
}

} // namespace vs::ui
