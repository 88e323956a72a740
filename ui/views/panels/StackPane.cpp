#include "views/panels/StackPane.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "common/QtText.h"
#include "models/StackFrameModel.h"
#include "session/Session.h"
#include "util/Format.h"
#include "util/TimeOrigin.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDesktopServices>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

namespace vs::ui {

StackPane::StackPane(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    header_ = new QLabel(tr("Select an event to see its call stack."), this);
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    model_ = new StackFrameModel(this);
    frames_ = new QTreeView(this);
    frames_->setModel(model_);
    frames_->setRootIsDecorated(false);
    frames_->setUniformRowHeights(true);
    frames_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    frames_->setToolTip(tr("Innermost frame first. Double-click a frame to open it in your editor."));
    connect(frames_, &QTreeView::activated, this, [this](const QModelIndex& row) { openInEditor(row); });
    internal_ = new QCheckBox(tr("Show internal frames"), this);
    internal_->setToolTip(tr("PyTorch, CPython and C++ runtime frames (Ctrl+Shift+I)"));
    // View > Show Internal Frames is the same switch, remembered across runs
    internalAct_ = new QAction(tr("Show &Internal Frames"), this);
    internalAct_->setCheckable(true);
    internalAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I)); // Ctrl+I: Capture Properties
    internal_->setChecked(QSettings().value(QStringLiteral("showInternalFrames"), false).toBool());
    internalAct_->setChecked(internal_->isChecked());
    connect(internalAct_, &QAction::toggled, internal_, &QCheckBox::setChecked);
    connect(internal_, &QCheckBox::toggled, this, [this](bool on) {
        rebuild();
        internalAct_->setChecked(on);
        QSettings().setValue(QStringLiteral("showInternalFrames"), on);
        emit showInternalChanged(on);
    });
    auto* copy = copyButton_ = new QPushButton(tr("Copy stack"), this);
    copy->setEnabled(false); // nothing to copy until an event is selected
    copy->setToolTip(tr("Copy the whole stack, internal frames included, as text"));
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(stackText()); });
    auto* open = openButton_ = new QPushButton(tr("Open in editor"), this);
    open->setEnabled(false); // until a frame with a file is selected
    connect(frames_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& row) {
                openButton_->setEnabled(row.data(StackFrameModel::FileRole).isValid());
            });
    open->setToolTip(
        tr("Open the selected frame's file at its line (Edit \u2192 Editor command\u2026 to configure)"));
    connect(open, &QPushButton::clicked, this, [this] { openInEditor(frames_->currentIndex()); });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(internal_);
    buttons->addStretch();
    buttons->addWidget(copy);
    buttons->addWidget(open);
    layout->addWidget(header_);
    layout->addWidget(frames_, 1);
    layout->addLayout(buttons);
}

void StackPane::setShowInternal(bool on) {
    internal_->setChecked(on);
}
bool StackPane::showInternal() const {
    return internal_->isChecked();
}

void StackPane::follow(Session* session) {
    connect(session, &Session::deviceChanged, this, &StackPane::clear);
    connect(session, &Session::eventSelected, this, [this, session](std::optional<size_t> event) {
        if (!event) return clear();
        showEvent(session->analysis(), session->device(), *event, session->originUs());
    });
}

void StackPane::clear() {
    analysis_.reset();
    header_->setText(tr("Select an event to see its call stack."));
    model_->clear();
    copyButton_->setEnabled(false), openButton_->setEnabled(false);
}

void StackPane::showEvent(AnalysisPtr analysis, size_t device, size_t event, int64_t originUs) {
    analysis_ = std::move(analysis);
    device_ = device, event_ = event, originUs_ = originUs;
    const DeviceTrace& t = analysis_->trace(device);
    const ReplayResult& r = analysis_->replay(device);
    header_->setText(
        tr("<b>#%1 %2</b> at %3 s: %4 at %5, stream %6<br>after it: allocated %7, reserved %8")
            .arg(event)
            .arg(QString::fromLatin1(actionName(t.action[event]).data()))
            .arg(secondsSince(originUs, t.timeUs[event]), 0, 'f', 6)
            .arg(formatBytes(double(t.size[event])), QString::fromStdString(hexAddress(t.addr[event])))
            .arg(analysis_->capture().streams[t.stream[event].value])
            .arg(formatBytes(double(r.allocated[event])), formatBytes(double(r.reserved[event]))));
    copyButton_->setEnabled(true);
    rebuild();
}

void StackPane::rebuild() {
    model_->setStack(analysis_, device_, event_, internal_->isChecked());
    openButton_->setEnabled(false); // no frame chosen in the new stack yet
}

int StackPane::visibleFrameCount() const {
    return model_->rowCount();
}

QString StackPane::stackText() const {
    if (!analysis_) return {};
    const Capture& c = analysis_->capture();
    QString out;
    for (FrameId f : c.stacks.frames(analysis_->trace(device_).stack[event_]))
        out += QStringLiteral("%1 (%2:%3)\n")
                   .arg(qtext(c, c.frames[f].name), qtext(c, c.frames[f].filename))
                   .arg(c.frames[f].line);
    return out;
}

void StackPane::openInEditor(const QModelIndex& row) {
    const QVariant file = row.data(StackFrameModel::FileRole);
    if (file.isValid()) ui::openInEditor(file.toString(), row.data(StackFrameModel::LineRole).toInt());
}

QString openInEditorReason(const QString& file, int line) {
    const QString command = QSettings().value(QStringLiteral("editorCommand")).toString().trimmed();
    if (!QFileInfo::exists(file))
        return QObject::tr("%1 does not exist on this machine (the capture may come from another one).")
            .arg(file);
    if (command.isEmpty())
        return QDesktopServices::openUrl(QUrl::fromLocalFile(file))
                   ? QString()
                   : QObject::tr("No application is set to open %1 on this desktop (xdg-open failed or is "
                                 "missing). Choose one in Edit \u2192 Editor Command\u2026, e.g. code -g "
                                 "{file}:{line}.")
                         .arg(QFileInfo(file).fileName());
    QStringList args = QProcess::splitCommand(command);
    for (QString& a : args)
        a.replace(QStringLiteral("{file}"), file).replace(QStringLiteral("{line}"), QString::number(line));
    const QString program = args.takeFirst();
    return QProcess::startDetached(program, args)
               ? QString()
               : QObject::tr(
                     "Could not start %1: it is not installed or not on PATH. Change it in Edit \u2192 "
                     "Editor Command\u2026.")
                     .arg(program);
}

void openInEditor(const QString& file, int line) {
    const QString reason = openInEditorReason(file, line);
    if (!reason.isEmpty()) QMessageBox::warning(nullptr, QObject::tr("Open in editor"), reason);
}

} // namespace vs::ui
