#include "window/MainWindow.h"

#include "live/LiveController.h"
#include "session/Session.h"
#include "timeline/FragmentationOverlay.h"
#include "timeline/TimelinePlot.h"
#include "util/SshTarget.h"
#include "views/dialogs/CapturePropertiesDialog.h"
#include "views/panels/BlockMapPanel.h"
#include "views/panels/EventsPane.h"
#include "views/panels/LeaksPanel.h"
#include "views/panels/PeakPanel.h"
#include "views/panels/RegionListView.h"
#include "views/panels/RetentionPanel.h"
#include "views/panels/StackPane.h"
#include "views/panels/WarningsBanner.h"
#include "views/panels/WhatIfPanel.h"
#include "views/ranks/RanksWindow.h"
#include "views/timeline/AllocationBandsView.h"
#include "views/timeline/CompositionView.h"
#include "views/timeline/MemoryMapView.h"
#include "window/OpeningFocus.h"
#include "window/RegionSelector.h"
#include "window/StatusBar.h"

#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <utility>

namespace vs::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(tr("vramscope"));
    setAcceptDrops(true);
    session_ = new Session(this);
    loader_ = new CaptureLoader(this);
    loader_->setObjectName(QStringLiteral("loader"));
    live_ = new LiveController(
        this, [this](const QString& label, AnalysisPtr a) { setAnalysis(label, std::move(a)); });
    // a live refresh that only appended grows the views in place (selections stay) instead of reopening
    live_->setObjectName(QStringLiteral("live"));
    live_->setExtend(
        [this](const AnalysisPtr& now, const AnalysisPtr& before) { return session_->extend(now, before); });
    connect(live_, &LiveController::failed, this, [this](const QString& title, const QString& message) {
        auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open(); // not modal to the live view: what arrived keeps showing
    });
    connect(live_, &LiveController::openCopy, this, [this](const QString& path) {
        copyOpening_ = true; // before the load starts: its end clears it
        openFile(path);
    });
    timeline_ = new TimelinePlot(this);
    timeline_->setObjectName(QStringLiteral("timeline"));
    timeline_->follow(session_);
    timeline_->setMinimumHeight(120);
    events_ = new EventsPane(session_, this);
    buildDetails();
    lower_ = new QSplitter(Qt::Horizontal, this);
    lower_->addWidget(events_);
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
    layout->addWidget(new WarningsBanner(session_, this));
    layout->addWidget(outer_, 1);
    setCentralWidget(central);

    regions_ = new RegionSelector(session_, timeline_, this);
    regions_->setObjectName(QStringLiteral("regionSelector"));
    // the Leaks tab's Regions list and findings line choose regions as a click on a ramp does
    connect(leaks_->regionList(), &RegionListView::regionChosen, regions_, &RegionSelector::select);
    connect(leaks_, &LeaksPanel::findingChosen, regions_, &RegionSelector::select);
    connect(leaks_, &LeaksPanel::windowChanged, this, [this](double from, double to, bool automatic) {
        if (automatic && !session_->region())
            timeline_->setGrowthRegion(QCPRange(from, to)); // detected window
    });
    focus_ = new OpeningFocus(session_, this); // an OOM or a quiet run's peak, selected on open
    connect(focus_, &OpeningFocus::leaksWanted, this, &MainWindow::showLeaksTab);
    connect(focus_, &OpeningFocus::peakWanted, this, &MainWindow::showPeakTab);
    fragmentation_ = new FragmentationOverlay(session_, timeline_, this);
    status_ = new StatusBar(session_, timeline_, loader_, live_, this);
    setStatusBar(status_);
    buildMenus();
    buildShell();
    connect(loader_, &CaptureLoader::loaded, this, &MainWindow::onLoaded);
    connect(loader_, &CaptureLoader::failed, this, &MainWindow::onFailed);
    connect(loader_, &CaptureLoader::damaged, this, &MainWindow::onDamaged);
    connect(session_, &Session::opened, this, &MainWindow::onOpened);
    connect(session_, &Session::growthReady, this, [this] { // the title counts what was found
        const size_t n = session_->growth()->regions->findings.size();
        const QString file = QFileInfo(session_->path()).fileName();
        const QString count = n == 1 ? tr("1 finding") : tr("%1 findings").arg(n);
        setWindowTitle(n ? tr("%1 \u2014 %2 \u2014 vramscope").arg(file, count)
                         : tr("%1 \u2014 vramscope").arg(file));
    });
    connect(session_, &Session::eventSelected, this, &MainWindow::onEventSelected);
    // the details tab a selection asks for: the Leaks tab for a finding, a range or a chosen region
    connect(leaks_, &LeaksPanel::attentionWanted, this, &MainWindow::showLeaksTab);
    connect(leaks_, &LeaksPanel::retentionRequested, this,
            [this] { details_->setCurrentWidget(retention_); });
    connect(memoryMap_, &MemoryMapView::cellClicked, this, &MainWindow::showBlockMapTab);
    restoreSettings();
}

MainWindow::~MainWindow() = default;

namespace {
// A details tab: the view follows the session; tests find it by its object name.
template <class View>
View* addTab(QTabWidget* tabs, Session* session, View* view, const char* name, const QString& title) {
    view->setObjectName(QLatin1String(name));
    view->follow(session);
    tabs->addTab(view, title);
    return view;
}
} // namespace

// The details tabs right of the events pane.
void MainWindow::buildDetails() {
    details_ = new QTabWidget(this);
    stack_ = addTab(details_, session_, new StackPane(this), "stackPane", tr("&Stack"));
    leaks_ = addTab(details_, session_, new LeaksPanel(this), "leaksPanel", tr("&Leaks"));
    peak_ = addTab(details_, session_, new PeakPanel(this), "peakPanel", tr("Pea&k"));
    blockMap_ = addTab(details_, session_, new BlockMapPanel(this), "blockMap", tr("&Block map"));
    memoryMap_ = addTab(details_, session_, new MemoryMapView(this), "memoryMap", tr("&Memory map"));
    memoryMap_->setToolTip(
        tr("Reserved address space (up) over time (right): allocated blue, pending amber, free grey"));
    // categories, outside PyTorch, the gap to the driver
    composition_ = addTab(details_, session_, new CompositionView(this), "composition", tr("Com&position"));
    // memory_viz's Active Memory Timeline
    bands_ =
        addTab(details_, session_, new AllocationBandsView(this), "allocationBands", tr("&Allocation bands"));
    retention_ = addTab(details_, session_, new RetentionPanel(this), "retentionPanel", tr("&Retention"));
    // allocator what-if (core/sim), on the session's job runner
    addTab(details_, session_, new WhatIfPanel(this), "whatIf", tr("W&hat-if"));
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
    events_->restoreColumns(s.value(QStringLiteral("window/eventColumns")).toByteArray());
    updateRecentMenu();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!live_->confirmClose()) return e->ignore(); // a program recorded on another host: stop it or leave it
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/outerSplitter"), outer_->saveState());
    s.setValue(QStringLiteral("window/lowerSplitter"), lower_->saveState());
    s.setValue(QStringLiteral("window/eventColumns"), events_->columnState());
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
    if (QFileInfo(path).isDir()) { // a folder of per-rank files (`vramscope FOLDER`, a drop), as File >
        // Open Ranks Folder… opens it; a rank chosen there opens here
        connect(RanksWindow::openIn(this, {path}), &RanksWindow::openRank, this, &MainWindow::openFile);
        return;
    }
    if (isSshUrl(path.toStdString())) { // through the user's ssh, followed while it is written
        std::string error;
        if (const auto target = parseSshUrl(path.toStdString(), error)) {
            live_->openRemote(*target);
            addRecent(path); // not the local copy of a snapshot (a private temporary file)
        } else
            onFailed(path, QString::fromStdString(error));
        return;
    }
    status_->setBusy(true);
    status_->showOpening(tr("Opening %1\u2026").arg(QFileInfo(path).fileName()));
    opening_ = options;
    loader_->openWith(path, options);
}

void MainWindow::openCudaLevel() {
    if (!session_->isOpen() || !session_->analysis()->capture().cudaLevel) return;
    status_->setBusy(true);
    status_->showOpening(
        tr("Opening the CUDA level of %1\u2026").arg(QFileInfo(session_->path()).fileName()));
    loader_->open(session_->path(), true);
}

void MainWindow::onLoaded(const QString& path, AnalysisPtr analysis) {
    status_->setBusy(false);
    shown_ = opening_;
    setAnalysis(path, std::move(analysis));
    if (!std::exchange(copyOpening_, false)) addRecent(path);
}

AnalysisPtr MainWindow::analysis() const {
    return session_->analysis();
}

void MainWindow::onFailed(const QString& path, const QString& message) {
    status_->setBusy(false);
    copyOpening_ = false;
    status_->showFile(); // the capture still shown, with its event count
    QMessageBox box(QMessageBox::Critical, tr("Cannot open capture"),
                    tr("vramscope could not open %1.").arg(QFileInfo(path).fileName()), QMessageBox::Ok,
                    this);
    box.setInformativeText(message);
    box.exec();
}

// A damaged .vscap: say where, and offer the chunks before the damage.
void MainWindow::onDamaged(const QString& path, const QString& message) {
    status_->setBusy(false);
    status_->showFile();
    QMessageBox box(
        QMessageBox::Warning, tr("Damaged capture"),
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

// A new capture: nothing of the previous one stays (selection, cursor, scroll, regions, dialogs);
// the views reset themselves from the session.
void MainWindow::onOpened() {
    if (properties_) properties_->close(); // it described the previous capture
    setWindowTitle(tr("%1 \u2014 vramscope").arg(QFileInfo(session_->path()).fileName()));
    cudaLevelAct_->setEnabled(session_->analysis()->capture().cudaLevel != nullptr);
    pages_->setCurrentIndex(1); // the views, instead of the welcome page
}

void MainWindow::showRetentionTab() {
    details_->setCurrentWidget(retention_);
}

void MainWindow::showLeaksTab() {
    details_->setCurrentWidget(leaks_);
}

void MainWindow::waitForBackgroundWork() {
    session_->jobs().waitForAll();     // the leak diagnosis too, and the region report it starts
    QCoreApplication::processEvents(); // delivers the finished signals
}

void MainWindow::showPeakTab() {
    details_->setCurrentWidget(peak_);
}

void MainWindow::showBlockMapTab() {
    details_->setCurrentWidget(blockMap_);
}

void MainWindow::showAllocationBandsTab() {
    details_->setCurrentWidget(bands_);
}

// An event selected anywhere: its stack, unless the block map is showing it (a block picked there).
void MainWindow::onEventSelected() {
    if (details_->currentWidget() != blockMap_) details_->setCurrentWidget(stack_);
}

void MainWindow::stepMarkedEvent(bool forward) {
    if (!events_->stepMarked(forward))
        status_->showMessage(tr("No events are marked: right-click a Leaks group"), 4000);
}

void MainWindow::goToTime(double seconds) {
    events_->goToTime(seconds); // the stack, block map and timeline marker follow; the timeline reveals it
}

QString MainWindow::regionStatus() const {
    return status_->regionText();
}

} // namespace vs::ui
