#include "LiveController.h"

#include "LiveSession.h"
#include "analysis/CaptureAnalysis.h"
#include "io/VscapReader.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
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
    : QObject(window), window_(window), show_(std::move(show)), session_(new LiveSession(this)) {
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
    updateActions();
}

void LiveController::updateActions() {
    if (!listenAct_) return;
    const bool on = session_->isListening();
    stopAct_->setEnabled(on);
    freezeAct_->setEnabled(on || !session_->bytes().isEmpty());
    saveAct_->setEnabled(!session_->bytes().isEmpty());
}

bool LiveController::listen(const QString& path) {
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
    const QByteArray bytes = session_->bytes();
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
    f.write(session_->bytes());
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
