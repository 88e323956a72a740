#include "window/MainWindow.h"

#include "live/LiveController.h"
#include "views/RetentionPanel.h"
#include "views/WhatIfPanel.h"

#include "views/AllocationBandsView.h"
#include "views/BlockMapPanel.h"
#include "common/ByteAxisTicker.h"
#include "views/CapturePropertiesDialog.h"
#include "views/DevicePicker.h"
#include "views/EventFindBar.h"
#include "models/EventTableModel.h"
#include "views/EventTableView.h"
#include "timeline/FragmentationOverlay.h"
#include "views/LeaksPanel.h"
#include "views/CompositionView.h"
#include "views/MemoryMapView.h"
#include "window/RegionSelector.h"
#include "views/StackPane.h"
#include "timeline/TimelinePlot.h"
#include "analysis/SummaryReport.h"
#include "session/Session.h"


#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace vs::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("vramscope"));
    setAcceptDrops(true);
    session_ = new Session(this);
    loader_ = new CaptureLoader(this);
    live_ = new LiveController(
        this, [this](const QString& label, AnalysisPtr a) { setAnalysis(label, std::move(a)); });
    // a live refresh that only appended grows the views in place (selections stay) instead of reopening
    live_->setExtend([this](const AnalysisPtr& now, const AnalysisPtr& before) { return session_->extend(now, before); });
    connect(live_, &LiveController::status, this,
            [this](const QString& text) { statusBar()->showMessage(text); });
    timeline_ = new TimelinePlot(this);
    timeline_->follow(session_);
    timeline_->setMinimumHeight(120);
    model_ = new EventTableModel(this);
    table_ = new EventTableView(model_, this);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    stack_ = new StackPane(this);
    stack_->follow(session_);
    warnings_ = new QLabel(this);
    warnings_->setObjectName(QStringLiteral("warnings"));
    warnings_->setWordWrap(true);
    warnings_->setVisible(false);
    warnings_->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #664d03; padding: 4px 8px; "
                                            "border-bottom: 1px solid #e0c060; }"));
    connect(warnings_, &QLabel::linkActivated, this, &MainWindow::showAllWarnings);

    leaks_ = new LeaksPanel(this);
    leaks_->follow(session_);
    details_ = new QTabWidget(this);
    details_->addTab(stack_, tr("&Stack"));
    details_->addTab(leaks_, tr("&Leaks"));
    blockMap_ = new BlockMapPanel(this);
    blockMap_->follow(session_);
    details_->addTab(blockMap_, tr("&Block map"));
    memoryMap_ = new MemoryMapView(this);
    memoryMap_->follow(session_);
    memoryMap_->setToolTip(
        tr("Reserved address space (up) over time (right): allocated blue, pending amber, free grey"));
    details_->addTab(memoryMap_, tr("&Memory map"));
    composition_ = new CompositionView(this); // categories, outside PyTorch, the gap to the driver
    composition_->follow(session_);
    details_->addTab(composition_, tr("Com&position"));
    bands_ = new AllocationBandsView(this); // memory_viz's Active Memory Timeline
    bands_->follow(session_);
    details_->addTab(bands_, tr("&Allocation bands"));
    retention_ = new RetentionPanel(this);
    retention_->follow(session_);
    details_->addTab(retention_, tr("&Retention"));
    auto* whatIf = new WhatIfPanel(this); // allocator what-if (core/sim), on the session's job runner
    whatIf->follow(session_);
    details_->addTab(whatIf, tr("W&hat-if"));
    devices_ = new DevicePicker(session_, this);
    auto* eventsPane = new QWidget(this);
    auto* eventsLayout = new QVBoxLayout(eventsPane);
    eventsLayout->setContentsMargins(0, 0, 0, 0);
    eventsLayout->setSpacing(0);
    eventsLayout->addWidget(devices_);
    findBar_ = new EventFindBar(table_, model_, this);
    eventsLayout->addWidget(findBar_);
    eventsLayout->addWidget(table_, 1);
    lower_ = new QSplitter(Qt::Horizontal, this);
    lower_->addWidget(eventsPane);
    lower_->addWidget(details_);
    lower_->setStretchFactor(0, 3);
    lower_->setStretchFactor(1, 2);
    outer_ = new QSplitter(Qt::Vertical, this);
    outer_->addWidget(timeline_);
    outer_->addWidget(lower_);
    outer_->setStretchFactor(0, 1); // half each: at 1280x800 the details tabs need the room
    outer_->setStretchFactor(1, 1);
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(warnings_);
    layout->addWidget(outer_, 1);
    setCentralWidget(central);

    regions_ = new RegionSelector(session_, timeline_, leaks_, blockMap_, this);
    fragmentation_ = new FragmentationOverlay(session_, timeline_, this);
    buildMenus();
    buildShell();
    buildStatusBar();
    linkViews();
    connect(loader_, &CaptureLoader::progress, progress_, &QProgressBar::setValue);
    connect(loader_, &CaptureLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &CaptureLoader::failed, this, &MainWindow::onFailed);
    connect(loader_, &CaptureLoader::damaged, this, &MainWindow::onDamaged);
    connect(loader_, &CaptureLoader::cancelled, this, [this](const QString& p) {
        setBusy(false);
        statusBar()->showMessage(tr("Opening %1 was cancelled").arg(QFileInfo(p).fileName()), 5000);
    });
    connect(timeline_, &TimelinePlot::cursorMoved, this, &MainWindow::onCursor);
    connect(timeline_, &TimelinePlot::selectionChanged, this, &MainWindow::onSelection);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& i) { onEventSelected(i.isValid() ? int64_t(model_->eventOf(i.row())) : -1); });
    connect(session_, &Session::opened, this, &MainWindow::onOpened);
    connect(session_, &Session::deviceChanged, this, &MainWindow::onDeviceChanged);
    connect(session_, &Session::extended, this, [this] {
        model_->appendRows(session_->analysis()); // rows inserted: the selection and scroll stay
        fileLabel_->setText(fileText());
    });
    connect(timeline_, &TimelinePlot::laneClicked, this, [this](size_t lane) { session_->setDevice(lane); });
    connect(stack_, &StackPane::showInternalChanged, this,
            [](bool on) { QSettings().setValue(QStringLiteral("showInternalFrames"), on); });
    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildStatusBar() {
    fileLabel_ = new QLabel(tr("No capture open"), this);
    cursorLabel_ = new QLabel(this);
    selectionLabel_ = new QLabel(this);
    regionLabel_ = new QLabel(this);
    regionLabel_->setToolTip(tr("The selected growth region; Ctrl+] and Ctrl+[ step through the regions"));
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 100);
    progress_->setMaximumWidth(220);
    progress_->setVisible(false);
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setToolTip(tr("Stop opening this file (Esc)"));
    cancel_->setVisible(false);
    connect(cancel_, &QPushButton::clicked, loader_, &CaptureLoader::cancel);
    statusBar()->addWidget(fileLabel_);
    statusBar()->addWidget(regionLabel_, 1);
    statusBar()->addWidget(selectionLabel_);
    statusBar()->addPermanentWidget(cursorLabel_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
}

void MainWindow::restoreSettings() {
    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        // first start: most of the screen, a timeline over a table and stack
        const QRect screen = QGuiApplication::primaryScreen()
                                 ? QGuiApplication::primaryScreen()->availableGeometry()
                                 : QRect(0, 0, 1600, 1000);
        resize(std::min(1500, screen.width() * 9 / 10), std::min(950, screen.height() * 9 / 10));
        outer_->setSizes({height() / 2, height() / 2});
        // the details tabs (Leaks: groups, sites, diagnosis) need nearly half of a narrow window
        const int events = width() < 1400 ? width() * 11 / 20 : width() * 3 / 5;
        lower_->setSizes({events, width() - events});
    }
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    outer_->restoreState(s.value(QStringLiteral("window/outerSplitter")).toByteArray());
    lower_->restoreState(s.value(QStringLiteral("window/lowerSplitter")).toByteArray());
    table_->horizontalHeader()->restoreState(s.value(QStringLiteral("window/eventColumns")).toByteArray());
    stack_->setShowInternal(s.value(QStringLiteral("showInternalFrames"), false).toBool());
    updateRecentMenu();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/outerSplitter"), outer_->saveState());
    s.setValue(QStringLiteral("window/lowerSplitter"), lower_->saveState());
    s.setValue(QStringLiteral("window/eventColumns"), table_->horizontalHeader()->saveState());
    loader_->cancel();
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

void MainWindow::openFile(const QString& path) {
    openFileWith(path, {});
}

void MainWindow::openFileWith(const QString& path, const OpenOptions& options) {
    setBusy(true);
    fileLabel_->setText(tr("Opening %1\u2026").arg(QFileInfo(path).fileName()));
    opening_ = options;
    loader_->openWith(path, options);
}

void MainWindow::openCudaLevel() {
    if (!session_->isOpen() || !session_->analysis()->capture().cudaLevel) return;
    setBusy(true);
    fileLabel_->setText(tr("Opening the CUDA level of %1\u2026").arg(QFileInfo(session_->path()).fileName()));
    loader_->open(session_->path(), true);
}

void MainWindow::setBusy(bool busy) {
    progress_->setVisible(busy);
    progress_->setValue(0);
    cancel_->setVisible(busy);
}

void MainWindow::onLoaded(const QString& path, AnalysisPtr analysis) {
    setBusy(false);
    shown_ = opening_;
    setAnalysis(path, std::move(analysis));
    addRecent(path);
}

AnalysisPtr MainWindow::analysis() const {
    return session_->analysis();
}

// "run.vscap • 2 device(s) • 1,234 events", or that nothing is open.
QString MainWindow::fileText() const {
    const AnalysisPtr a = session_->analysis();
    if (!a) return tr("No capture open");
    size_t events = 0;
    for (size_t i = 0; i < a->deviceCount(); ++i) events += a->trace(i).eventCount();
    return tr("%1 \u2022 %n device(s)", nullptr, int(a->deviceCount())).arg(QFileInfo(session_->path()).fileName()) +
           tr(" \u2022 %L1 events").arg(events);
}

void MainWindow::onFailed(const QString& path, const QString& message) {
    setBusy(false);
    fileLabel_->setText(fileText()); // the capture still shown, with its event count
    QMessageBox box(QMessageBox::Critical, tr("Cannot open capture"),
                    tr("vramscope could not open %1.").arg(QFileInfo(path).fileName()), QMessageBox::Ok,
                    this);
    box.setInformativeText(message);
    box.exec();
}

// A damaged .vscap: say where, and offer the chunks before the damage.
void MainWindow::onDamaged(const QString& path, const QString& message) {
    setBusy(false);
    fileLabel_->setText(fileText());
    QMessageBox box(QMessageBox::Warning, tr("Damaged capture"),
                    tr("%1 is damaged; the part before the damage can be opened.").arg(QFileInfo(path).fileName()),
                    QMessageBox::Cancel, this);
    box.setInformativeText(message);
    QPushButton* intact = box.addButton(tr("Open the &Intact Part"), QMessageBox::AcceptRole);
    box.setDefaultButton(intact);
    box.exec();
    if (box.clickedButton() == intact) openFileWith(path, {std::nullopt, true});
}

void MainWindow::setAnalysis(const QString& path, AnalysisPtr analysis) {
    session_->open(path, std::move(analysis)); // onOpened, then onDeviceChanged
}

// A new capture: nothing of the previous one stays (selection, cursor, scroll, regions, dialogs).
void MainWindow::onOpened() {
    if (properties_) properties_->close(); // it described the previous capture
    const AnalysisPtr a = session_->analysis();
    setWindowTitle(tr("%1 \u2014 vramscope").arg(QFileInfo(session_->path()).fileName()));
    fileLabel_->setText(fileText());
    fileLabel_->setToolTip(session_->path());
    // a few warnings in the banner; a file with a thousand devices has a thousand of them, and the
    // banner must not push the views off the window: the rest behind a link
    constexpr size_t kShown = 3;
    const auto& all = a->warnings();
    QStringList warnings;
    for (size_t i = 0; i < all.size() && i < kShown; ++i) warnings << QString::fromStdString(all[i]).toHtmlEscaped();
    QString text = QStringLiteral("\u26a0 ") + warnings.join(QStringLiteral("<br>\u26a0 "));
    if (all.size() > kShown)
        text += tr("<br>\u2026 and %1 more: <a href=\"#warnings\">show all %2 warnings</a>").arg(all.size() - kShown).arg(all.size());
    warnings_->setText(text);
    warnings_->setVisible(!warnings.isEmpty());
    cursorLabel_->clear();
}

void MainWindow::showAllWarnings() {
    if (!session_->analysis()) return;
    QString all;
    for (const auto& w : session_->analysis()->warnings()) all += QString::fromStdString(w) + QLatin1Char('\n');
    QMessageBox box(QMessageBox::Warning, tr("Warnings \u2014 vramscope"),
                    tr("The capture was read with %n warning(s); they are listed below.", nullptr,
                       int(session_->analysis()->warnings().size())),
                    QMessageBox::Close, this);
    box.setDetailedText(all);
    box.exec();
}

// The device being browsed changed (or a capture was opened): the panels follow the session on their
// own; the event list (a model this window lays out) and the status bar are the window's.
void MainWindow::onDeviceChanged(size_t device) {
    model_->setDevice(session_->analysis(), device, session_->originUs());
    table_->resizeColumnsToContents(); // from the first rows; the index column must fit the last one
    const size_t events = model_->eventCount(); // on every page: the last index and time are the widest
    table_->setColumnWidth(EventTableModel::Index,
                           table_->fontMetrics().horizontalAdvance(QString::number(events)) + 16);
    if (events > 0) // 1234.567890 s
        table_->setColumnWidth(EventTableModel::Time,
                               std::max(table_->columnWidth(EventTableModel::Time),
                                        table_->fontMetrics().horizontalAdvance(
                                            QString::number(model_->timeOfEvent(events - 1), 'f', 6)) + 16));
    // The site (last, stretched) column takes what is left, not its longest text: no horizontal
    // scrolling at 1280 px; a cut site reads whole in its tooltip.
    table_->setColumnWidth(model_->columnCount() - 1, table_->fontMetrics().horizontalAdvance(QStringLiteral("site")) + 16);
    table_->setCurrentIndex(QModelIndex()); // no event is selected until the user picks one
    table_->scrollToTop();
    selectionLabel_->clear();
    regionLabel_->clear();
}

void MainWindow::showRetentionTab() {
    details_->setCurrentWidget(retention_);
}

void MainWindow::showLeaksTab() {
    details_->setCurrentWidget(leaks_);
}

void MainWindow::waitForBackgroundWork() {
    leaks_->waitForResult();
    session_->jobs().waitForAll();
    QCoreApplication::processEvents(); // delivers the finished signals
}

void MainWindow::showBlockMapTab() {
    details_->setCurrentWidget(blockMap_);
}

void MainWindow::showAllocationBandsTab() {
    details_->setCurrentWidget(bands_);
}

void MainWindow::onCursor(double seconds) {
    if (!session_->isOpen()) return;
    cursorLabel_->setText(tr("t = %1 s").arg(seconds, 0, 'f', 6));
}

void MainWindow::onSelection(double from, double to) {
    const AnalysisPtr analysis = session_->analysis();
    if (!analysis || to <= from) {
        session_->setRange(std::nullopt);
        selectionLabel_->clear();
        if (analysis) leaks_->analyse(analysis, session_->device()); // back to the detected region
        return;
    }
    session_->setRange(std::make_pair(from, to));
    const size_t d = session_->device();
    regions_->clear(); // the Leaks tab explains the range now, not a region
    const size_t first = model_->eventAtTime(from);
    leaks_->analyse(analysis, d, first + (model_->timeOfEvent(first) < from),
                    model_->eventAtTime(to)); // what survives the selected range
    showLeaksTab();
    const Totals a = timeline_->valuesAt(d, from), b = timeline_->valuesAt(d, to);
    auto delta = [](int64_t v) {
        return (v >= 0 ? QStringLiteral("+") : QString()) + formatBytes(double(v));
    };
    selectionLabel_->setText(tr("Selection %1 s: allocated %2, reserved %3")
                                 .arg(to - from, 0, 'f', 6)
                                 .arg(delta(b.allocated - a.allocated), delta(b.reserved - a.reserved)));
}

void MainWindow::selectEventAt(double seconds) {
    if (!session_->isOpen() || model_->rowCount() == 0) return;
    clickedOnTimeline_ = true; // the user is looking at that moment: do not move the view
    table_->goToEvent(model_->eventAtTime(seconds)); // currentRowChanged: the stack pane and the marker
    clickedOnTimeline_ = false;
}

void MainWindow::onEventSelected(int64_t event) {
    const AnalysisPtr analysis = session_->analysis();
    if (!analysis || event < 0) return;
    session_->selectEvent(size_t(event)); // the stack pane follows
    const size_t d = session_->device();
    if (!fromBlockMap_ && !keepDetails_) session_->setMoment(size_t(event) + 1); // the block map follows
    if (!keepDetails_ && details_->currentWidget() != blockMap_) details_->setCurrentWidget(stack_);
    timeline_->setHighlightedEvent(analysis->trace(d).device, size_t(event), !clickedOnTimeline_);
}

} // namespace vs::ui
