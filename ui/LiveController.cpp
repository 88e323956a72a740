#include "LiveController.h"

#include "FileFollower.h"
#include "LiveSession.h"
#include "analysis/CaptureAnalysis.h"
#include "io/VscapReader.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
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
#include <QtConcurrent>

namespace vs::ui {

namespace {
constexpr int kRefreshMs = 250; // with the recorder's 100 ms flushes: well under 0.5 s end to end

AnalysisPtr decode(const QByteArray& bytes) {
    // A live stream is unfinished by nature: decode its complete chunks without the reader's
    // end-of-file remarks ("cut off", "not closed"); only drops are worth a warning here.
    auto capture = std::make_unique<Capture>();
    vscap::Decoder d(*capture);
    d.consume({reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size())}, 0);
    if (capture->devices.empty()) return nullptr; // nothing to draw yet
    if (d.dropped())
        capture->warnings.push_back("the recorder dropped " + std::to_string(d.dropped()) +
                                    " events (its buffer was full)");
    capture->path = "live";
    capture->format = "vscap";
    return CaptureAnalysis::analyse(std::move(capture));
}
} // namespace

LiveController::LiveController(QWidget* window, Show show)
    : QObject(window), window_(window), show_(std::move(show)), session_(new LiveSession(this)),
      follower_(new FileFollower(this)) {
    timer_.setInterval(kRefreshMs);
    connect(&timer_, &QTimer::timeout, this, &LiveController::refresh);
    connect(&job_, &QFutureWatcher<AnalysisPtr>::finished, this, [this] {
        AnalysisPtr a;
        try {
            a = job_.result();
        } catch (const std::exception& e) {
            emit status(tr("Live data could not be read: %1").arg(QString::fromStdString(e.what())));
            return;
        }
        if (a && !frozen_) show_(tr("live: %1").arg(session_->socketPath()), a);
    });
    connect(session_, &LiveSession::statusChanged, this, &LiveController::status);
    connect(session_, &LiveSession::statusChanged, this, &LiveController::updateActions);
    connect(follower_, &FileFollower::statusChanged, this, &LiveController::status);
}

LiveController::~LiveController() {
    job_.waitForFinished();
}

void LiveController::addActions(QMenu* menu) {
    listenAct_ = menu->addAction(tr("&Listen for a Live Recording\u2026"), QKeySequence(Qt::CTRL | Qt::Key_L),
                                 this, [this] {
                                     if (listen()) showCommand();
                                 });
    listenAct_->setToolTip(
        tr("Open a private socket that a program recorded with the vramscope agent streams to"));
    stopAct_ = menu->addAction(tr("S&top Listening"), this, &LiveController::stopListening);
    freezeAct_ = menu->addAction(tr("&Freeze Live View"), QKeySequence(Qt::Key_F9), this,
                                 [this](bool on) { setFrozen(on); });
    freezeAct_->setCheckable(true);
    freezeAct_->setToolTip(tr("Stop updating the view to inspect it; data keeps arriving in the background"));
    saveAct_ = menu->addAction(
        tr("&Save Live Session As\u2026"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, [this] {
            const QString p =
                QFileDialog::getSaveFileName(window_, tr("Save live session"), QStringLiteral("live.vscap"),
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
    launchAct_->setToolTip(tr("Run any CUDA program with the CUPTI agent and follow its device memory live"));
    updateActions();
}

QString LiveController::agentLibrary() {
    const QString env = qEnvironmentVariable("VRAMSCOPE_CUPTI_LIB");
    return env.isEmpty() ? QCoreApplication::applicationDirPath() + QStringLiteral("/libvramscope_cupti.so")
                         : env;
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
    const QString output =
        QDir::temp().filePath(QStringLiteral("vramscope-launch-%1.vscap")
                                  .arg(QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss")));
    launch(words.front(), words.mid(1), output);
}

bool LiveController::launch(const QString& program, const QStringList& arguments, const QString& output) {
    if (!QFile::exists(agentLibrary())) {
        QMessageBox::warning(window_, tr("No CUPTI agent"),
                             tr("%1 was not found: it is built when the CUDA toolkit's CUPTI is installed "
                                "(or set VRAMSCOPE_CUPTI_LIB).")
                                 .arg(agentLibrary()));
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
    QFile::remove(output);
    following_ = true, shownBytes_ = -1;
    follower_->follow(output);
    timer_.start();
    process_->start(program, arguments);
    emit status(tr("Running %1 with the CUPTI agent, following %2").arg(program, output));
    return true;
}

QByteArray LiveController::currentBytes() const {
    return following_ ? follower_->bytes() : session_->bytes();
}

void LiveController::updateActions() {
    if (!listenAct_) return;
    const bool on = session_->isListening();
    stopAct_->setEnabled(on);
    retentionAct_->setEnabled(session_->connected());
    freezeAct_->setEnabled(on || following_ || !currentBytes().isEmpty());
    saveAct_->setEnabled(!currentBytes().isEmpty());
}

bool LiveController::listen(const QString& path) {
    following_ = false;
    if (!session_->listen(path.isEmpty() ? LiveSession::defaultSocketPath() : path)) {
        QMessageBox::warning(window_, tr("Cannot listen"), session_->errorString());
        return false;
    }
    shownBytes_ = -1;
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
    if (!frozen) shownBytes_ = -1, refresh();
}

void LiveController::refresh() {
    const QByteArray bytes = currentBytes();
    if (frozen_ || job_.isRunning() || bytes.size() == shownBytes_ || bytes.isEmpty()) return;
    shownBytes_ = bytes.size();
    job_.setFuture(QtConcurrent::run([bytes] { return decode(bytes); }));
    updateActions();
}

void LiveController::waitForRefresh() {
    refresh();
    job_.waitForFinished();
    QCoreApplication::processEvents();
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
