// The GUI, offscreen: plotted series against PyTorch's truth, mouse interactions on the timeline,
// the event list and stack pane in sync, and headless --screenshot.
#include "PickleBuilder.h"
#include "SyntheticLoop.h"
#include "TestData.h"
#include "WindowParts.h"
#include "analysis/replay/Replay.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "models/CallTreeModel.h"
#include "models/EventTableModel.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "util/Format.h"
#include "views/dialogs/CapturePropertiesDialog.h"
#include "views/panels/BlockMapPanel.h"
#include "views/panels/EventTableView.h"
#include "views/panels/FlameGraph.h"
#include "views/panels/LeaksPanel.h"
#include "views/panels/OomRequestBars.h"
#include "views/panels/PeakPanel.h"
#include "views/panels/RegionListView.h"
#include "views/panels/RetentionPanel.h"
#include "views/panels/Sparkline.h"
#include "views/panels/StackPane.h"
#include "views/ranks/RanksWindow.h"
#include "views/timeline/MemoryMapView.h"
#include "window/MainWindow.h"
#include "window/RegionSelector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace vs;
using namespace vs::test;
using vs::ui::MainWindow;
using vs::ui::TimelinePlot;

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void growthAnalysedOncePerOpen();
    void retentionTabNamesTheHolder();
    void retentionTabSaysWhyThereIsNone();
    void eventListTurnsPages();
    void plottedExtremesEqualTruth();
    void wheelZoomsAroundTheMouse();
    void dragPansAndHistoryGoesBack();
    void shiftDragSelectsARange();
    void clickSelectsEventAndStack();
    void badFileShowsNoCrashAndKeepsWindow();
    void devicesGetLinkedLanes();
    void leaksPanelShowsTheLeak();
    void darkPaletteGivesDarkPlot();
    void blockMapFollowsAndSelects();
    void blockMapNamesAPoolCache();
    void propertiesDescribeTheRecording();
    void damagedCaptureOffersTheIntactPart();
    void fragmentationOnTheTimeline();
    void memoryMapClickMovesTheBlockMap();
    void blockMapExpandableRangesGrowAndZoom();
    void screenshotWritesAskedSize();
    void folderOpensTheRanksView();
    void coldOpenSelectsTheWorstRegion();
    void quietRunOpensOnItsPeak();
    void outOfMemoryOpensAtTheFailure();
    void clickOnARampSelectsItsRegion();
    void clickOnALeakTickSelectsThatAllocation();
    void zoomedInClickSelectsAnIterationsRise();
    void groupMarksLineUpAcrossViews();
    void leaksTreesFoldLibraryFrames();
    void everyDeviceBrowsable();
    void manyDevicesGetTheBusiestLanes();
    void manyWarningsKeepTheWindowUsable();
    void openingAnotherFileLeavesNoState();
    void twoDevicesLineUpInPixels();
    void idleGapsAreFoldedAndUnfolded();
    void hiddenBlockMapReplaysInTheBackground();
    void eventTableFitsAt1280();
    void newestSnapshotFieldsOnScreen();

  private:
    std::unique_ptr<MainWindow> open(const QString& name);
    std::unique_ptr<MainWindow> openAccumulation();
    static std::unique_ptr<MainWindow>
    openSample(const QString& underSamples); // a path under samples/captures
    static void mouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons,
                      Qt::KeyboardModifiers mods = {});
};

namespace {
// Writes bytes to NAME in dir; the file's path, or an empty string when it could not be written.
QString writeFile(const QTemporaryDir& dir, const QString& name, std::string_view bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
        return {};
    return path;
}

// The first allocated block (recorded, not from before the recording) on screen in a block map.
std::optional<std::pair<QPoint, StateBlock>> findAllocatedBlock(ui::BlockMapView* view) {
    for (int y = 2; y < view->viewport()->height(); y += 3)
        for (int x = 2; x < view->viewport()->width(); x += 3) {
            const auto h = view->hitTest({x, y});
            if (h.segment < 0 || h.block < 0) continue;
            const StateBlock b = view->segments()[size_t(h.segment)].blocks[size_t(h.block)];
            if (b.state == BlockState::ActiveAllocated && b.allocEvent != kNoEvent)
                return std::make_pair(QPoint(x, y), b);
        }
    return std::nullopt;
}
// Three epochs of 10 steps after a model is built; every step makes a 4 MiB temporary and keeps
// 1 MiB (a metric with its graph) that the epoch's end releases, then a tail where nothing is kept:
// three accumulation teeth, then flat ground.
ui::AnalysisPtr accumulationCapture() {
    vs::test::SyntheticLoop loop;
    const StackId keep = loop.stack({{"training_step", 17}, {"fit", 80}});
    const StackId clear = loop.stack({{"on_epoch_end", 40}, {"fit", 85}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    for (int steps : {10, 10, 10}) {
        std::vector<uint64_t> held;
        for (int i = 0; i < steps; ++i) loop.step(4 << 20), held.push_back(loop.alloc(1 << 20, keep));
        for (auto it = held.rbegin(); it != held.rend(); ++it) loop.free(*it, 1 << 20, clear);
    }
    const StackId forward = loop.stack({{"forward", 30}, {"training_step", 12}, {"fit", 80}});
    for (int i = 0; i < 6; ++i) { // the tail: a forward pass of two 2 MiB activations per step
        loop.step(4 << 20);
        const uint64_t a = loop.alloc(2 << 20, forward), b = loop.alloc(2 << 20, forward);
        loop.free(b, 2 << 20, forward), loop.free(a, 2 << 20, forward);
    }
    return CaptureAnalysis::analyse(loop.take());
}

double secondsOf(const MainWindow& w, uint32_t event) {
    return double(timelineOf(w)->analysis()->trace(0).timeUs[event] - timelineOf(w)->originUs()) / 1e6;
}

// A point in the top tenth of the first lane at a time: above the curves, on the shading.
QPoint pixelAt(TimelinePlot* plot, double seconds) {
    QCPAxisRect* rect = plot->axisRect(0);
    return {int(std::lround(rect->axis(QCPAxis::atBottom)->coordToPixel(plot->fold().toAxis(seconds)))),
            rect->top() + rect->height() / 10};
}

// Every background job of the Leaks panel done (a cold open explains its region in a second job).
void settle(MainWindow& w) {
    for (int i = 0; i < 3; ++i) leaksOf(w)->waitForResult(), QApplication::processEvents();
}

} // namespace

void TestMainWindow::initTestCase() {
    QCoreApplication::setOrganizationName("vramscope-tests");
    QSettings().clear();
}

// A capture larger than a page of the event list (100 rows here, a million in the window): every
// event is reachable, by going to it and by scrolling past a page's end, and each row shows its event.
void TestMainWindow::eventListTurnsPages() {
    auto w = open("leak_list");
    const auto a = timelineOf(*w)->analysis();
    const size_t n = a->trace(0).eventCount();
    QVERIFY2(n > 400, qPrintable(QString::number(n)));
    ui::EventTableModel model(nullptr, 100);
    ui::EventTableView view(&model);
    view.resize(600, 300);
    model.setDevice(a, 0, a->trace(0).timeUs.front());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(model.rowCount(), 100);
    QVERIFY(model.hasLater() && !model.hasEarlier());
    const auto shown = [&](int row) {
        return model.data(model.index(row, ui::EventTableModel::Index), Qt::DisplayRole).toULongLong();
    };
    view.goToEvent(n - 3); // the last page: centred as far as the capture allows
    QCOMPARE(view.currentEvent(), int64_t(n - 3));
    QCOMPARE(shown(view.currentIndex().row()), qulonglong(n - 3));
    QCOMPARE(model.firstEvent(), n - 100);
    QVERIFY(!model.hasLater());
    view.goToEvent(250);
    QCOMPARE(view.currentEvent(), int64_t(250));
    QCOMPARE(model.firstEvent(), size_t(200));
    QCOMPARE(model.eventAtTime(model.timeOfEvent(250)) >= 250, true);
    // Scrolling to the bottom of the page turns it: the top row stays, the current event stays current.
    QScrollBar* bar = view.verticalScrollBar();
    bar->setValue(bar->maximum());
    const size_t first = model.firstEvent();
    QVERIFY2(first > 200, qPrintable(QString::number(first)));
    QVERIFY(bar->value() < bar->maximum()); // room to scroll on
    QCOMPARE(view.currentEvent(), int64_t(250));
    QVERIFY(shown(view.rowAt(0)) >= 250);
    bar->setValue(bar->minimum()); // and back up past the page's start
    QVERIFY(model.firstEvent() < first);
    // Marks step across pages.
    model.setMarkedEvents({5, uint32_t(n - 2)});
    QCOMPARE(model.nextMarked(250, true), int64_t(n - 2));
    QCOMPARE(model.nextMarked(250, false), int64_t(5));
    QCOMPARE(model.nextMarked(int64_t(n - 2), true), int64_t(5)); // wraps
}

std::unique_ptr<MainWindow> TestMainWindow::open(const QString& name) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis(name, ui::CaptureLoader::openNow(QString::fromStdString(vs::test::samplePath(name))));
    QApplication::processEvents();
    timelineOf(*w)->replot();
    return w;
}

std::unique_ptr<MainWindow> TestMainWindow::openSample(const QString& underSamples) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    const QString path = vs::test::samplesDir() + underSamples;
    w->setAnalysis(path, ui::CaptureLoader::openNow(path));
    settle(*w);
    return w;
}

std::unique_ptr<MainWindow> TestMainWindow::openAccumulation() {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis("accumulation", accumulationCapture());
    settle(*w);
    timelineOf(*w)->replot();
    return w;
}

void TestMainWindow::mouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons,
                           Qt::KeyboardModifiers mods) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent e(type, QPointF(at), w->mapToGlobal(QPointF(at)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

void TestMainWindow::plottedExtremesEqualTruth() {
    for (const QString name : {"leak_list", "mixed_sizes", "expandable"}) {
        auto w = open(name);
        const QJsonObject truth = vs::test::sampleTruth(name);
        TimelinePlot* plot = timelineOf(*w);
        using S = TimelinePlot::Series;
        auto maxOf = [](QCPGraph* g) {
            double m = 0;
            for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
                m = std::max(m, it->value);
            return m;
        };
        QCPGraph* reserved = plot->seriesGraph(0, S::Reserved, true);
        QCPGraph* allocated = plot->seriesGraph(0, S::Allocated, true);
        QCOMPARE(allocated->name(), QString("allocated"));
        QCOMPARE(maxOf(allocated), truth["max_memory_allocated"].toDouble());
        QCOMPARE(maxOf(reserved), truth["max_memory_reserved"].toDouble());
        QCOMPARE((plot->seriesGraph(0, S::Allocated, false)->data()->constEnd() - 1)->value,
                 truth["final_allocated"].toDouble());
        // two points (minimum and maximum) per pixel column and series at most
        QVERIFY(plot->pointsDrawn() <= size_t(3 * 2 * (plot->axisRect(0)->width() + 2)));
    }
}

void TestMainWindow::wheelZoomsAroundTheMouse() {
    auto w = open("clean_loop");
    TimelinePlot* plot = timelineOf(*w);
    plot->setFoldIdleGaps(false); // the axis in seconds throughout: zoom is measured on it
    const QCPRange before = plot->visibleRange();
    QCPAxisRect* rect = plot->axisRect(0);
    const QPoint at(rect->left() + rect->width() / 4, rect->top() + rect->height() / 2);
    const double under = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    const QCPRange after = plot->visibleRange();
    QVERIFY2(after.size() < before.size() * 0.95, qPrintable(QString("%1..%2 -> %3..%4")
                                                                 .arg(before.lower)
                                                                 .arg(before.upper)
                                                                 .arg(after.lower)
                                                                 .arg(after.upper)));
    const double now = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    QVERIFY2(std::abs(now - under) < before.size() * 1e-3,
             qPrintable(QString("%1 under the mouse before, %2 after; range %3..%4 -> %5..%6")
                            .arg(under)
                            .arg(now)
                            .arg(before.lower)
                            .arg(before.upper)
                            .arg(after.lower)
                            .arg(after.upper)));
}

void TestMainWindow::dragPansAndHistoryGoesBack() {
    auto w = open("clean_loop");
    TimelinePlot* plot = timelineOf(*w);
    plot->setVisibleRange(QCPRange(1, 3));
    QCPAxisRect* rect = plot->axisRect(0);
    const QPoint a(rect->left() + 400, rect->top() + 50), b(rect->left() + 200, rect->top() + 50);
    mouse(plot, QEvent::MouseButtonPress, a, Qt::LeftButton);
    mouse(plot, QEvent::MouseMove, b, Qt::LeftButton);
    mouse(plot, QEvent::MouseButtonRelease, b, Qt::NoButton);
    const QCPRange panned = plot->visibleRange();
    QVERIFY(panned.lower > 1.01); // dragged to the left: later times come into view
    QVERIFY(std::abs(panned.size() - 2.0) < 1e-9);
    QVERIFY(plot->zoomBack());
    QCOMPARE(plot->visibleRange().lower, 1.0);
    QVERIFY(plot->zoomForward());
    QCOMPARE(plot->visibleRange().lower, panned.lower);
    plot->fitAll();
    QVERIFY(plot->visibleRange().size() > 2.0);
}

void TestMainWindow::shiftDragSelectsARange() {
    auto w = open("leak_list");
    TimelinePlot* plot = timelineOf(*w);
    QSignalSpy spy(plot, &TimelinePlot::selectionChanged);
    QCPAxisRect* rect = plot->axisRect(0);
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    const QPoint a(rect->left() + 100, rect->top() + 40), b(rect->left() + 600, rect->top() + 40);
    mouse(plot, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::ShiftModifier);
    mouse(plot, QEvent::MouseMove, b, Qt::LeftButton, Qt::ShiftModifier);
    mouse(plot, QEvent::MouseButtonRelease, b, Qt::NoButton, Qt::ShiftModifier);
    QCOMPARE(spy.count(), 1);
    const double from = spy.at(0).at(0).toDouble(), to = spy.at(0).at(1).toDouble();
    QVERIFY(std::abs(from - x->pixelToCoord(a.x())) < 1e-9);
    QVERIFY(std::abs(to - x->pixelToCoord(b.x())) < 1e-9);
    QVERIFY(plot->selection().has_value());
    // the values the status bar reports for the selection are the replay's at those moments
    const auto& trace = timelineOf(*w)->analysis()->trace(0);
    const auto us = plot->originUs() + static_cast<int64_t>(std::floor(to * 1e6));
    const auto n = std::upper_bound(trace.timeUs.begin(), trace.timeUs.end(), us) - trace.timeUs.begin();
    QVERIFY(n > 0);
    QCOMPARE(plot->valuesAt(0, to).allocated, timelineOf(*w)->analysis()->replay(0).allocated[size_t(n - 1)]);
}

void TestMainWindow::clickSelectsEventAndStack() {
    auto w = open("stacks_all");
    TimelinePlot* plot = timelineOf(*w);
    QCPAxisRect* rect = plot->axisRect(0);
    const QPoint at(rect->left() + rect->width() / 2, rect->top() + 40);
    mouse(plot, QEvent::MouseButtonPress, at, Qt::LeftButton);
    mouse(plot, QEvent::MouseButtonRelease, at, Qt::NoButton);
    const int64_t event = eventTableOf(*w)->currentEvent();
    QVERIFY(event >= 0);
    const double t = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    auto* model = static_cast<ui::EventTableModel*>(eventTableOf(*w)->model());
    QVERIFY(model->timeOfEvent(size_t(event)) <= t);
    if (size_t(event) + 1 < model->eventCount()) QVERIFY(model->timeOfEvent(size_t(event) + 1) > t);
    // stacks=all: internal frames are folded until the toggle is on
    eventTableOf(*w)->selectRow(0);
    const int folded = stackOf(*w)->visibleFrameCount();
    stackOf(*w)->setShowInternal(true);
    const int all = stackOf(*w)->visibleFrameCount();
    QVERIFY2(all > folded, qPrintable(QString("%1 vs %2").arg(all).arg(folded)));
    QVERIFY(stackOf(*w)->stackText().count('\n') >= all - 1);
}

void TestMainWindow::badFileShowsNoCrashAndKeepsWindow() {
    auto w = open("oom");
    QTemporaryDir dir;
    const QString bad = writeFile(dir, "bad.pickle", "\x80\x04garbage");
    QVERIFY(!bad.isEmpty());
    QSignalSpy failed(loaderOf(*w), &ui::CaptureLoader::failed);
    QTimer::singleShot(0, [] {}); // the error dialog is modal: close it as soon as it shows
    QTimer closer;
    QObject::connect(&closer, &QTimer::timeout, [] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) box->accept();
    });
    closer.start(20);
    w->openFile(bad);
    QVERIFY(failed.wait(5000));
    QVERIFY(failed.at(0).at(1).toString().contains("at byte"));
    QVERIFY(timelineOf(*w)->analysis() != nullptr); // the previous capture is still shown
    QCOMPARE(timelineOf(*w)->seriesGraph(0, TimelinePlot::Series::Allocated, true)->name(),
             QString("allocated"));
}

void TestMainWindow::devicesGetLinkedLanes() {
    MainWindow w;
    w.resize(1200, 900);
    w.show();
    const QString path = QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/../synthetic/two_devices.pickle.zst");
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    QApplication::processEvents();
    TimelinePlot* plot = timelineOf(w);
    QCOMPARE(plot->axisRectCount(), 2);
    plot->setVisibleRange(QCPRange(0.001, 0.002));
    QCOMPARE(plot->axisRect(1)->axis(QCPAxis::atBottom)->range().lower, 0.001);
    QCOMPARE(plot->axisRect(1)->axis(QCPAxis::atBottom)->range().upper, 0.002);
    QVERIFY(plot->tooltipAt(1, 0.0015).contains("device 1"));
    // each lane plots its own device: their peaks are the replays' peaks
    for (size_t d = 0; d < 2; ++d) {
        plot->fitAll();
        plot->replot();
        double m = 0;
        const QCPGraph* g = plot->seriesGraph(d, TimelinePlot::Series::Allocated, true);
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) m = std::max(m, it->value);
        QCOMPARE(m, double(plot->analysis()->replay(d).peak.allocated));
    }
}

void TestMainWindow::leaksPanelShowsTheLeak() {
    auto w = open("leak_list");
    ui::LeaksPanel* panel = leaksOf(*w);
    panel->waitForResult();
    QCOMPARE(panel->report().kind, LeakKind::Leak);
    QVERIFY(panel->groupRows() > 0);
    // the top group's allocations are marked on the timeline, its live bytes drawn as a sparkline
    const SurvivorGroup& top = panel->report().groups.front();
    QVERIFY(panel->sparkline()->pointCount() >= top.count);
    // the header names the region the timeline shades, the first finding's
    const auto* header = panel->findChild<QLabel*>(QStringLiteral("leakDiagnosis"));
    QVERIFY(header);
    const ui::Session& session = *w->session();
    QVERIFY(panel->report().region.has_value());
    const GrowthRegion& region = *panel->report().region;
    const QString span = QStringLiteral("region %1 s \u2013 %2 s")
                             .arg(QString::number(session.secondsAt(0, region.first), 'f', 3),
                                  QString::number(session.secondsAt(0, region.last), 'f', 3));
    QVERIFY2(header->text().contains(span), qPrintable(header->text()));
    QCPGraph* marks = nullptr;
    for (int i = 0; i < timelineOf(*w)->graphCount(); ++i)
        if (timelineOf(*w)->graph(i)->name() == "allocations of the selected Leaks group")
            marks = timelineOf(*w)->graph(i);
    QVERIFY(marks);
    QCOMPARE(marks->data()->size(), int(top.count));
    // search keeps the path to train_and_keep in the top-down tree
    panel->setSearch("train_and_keep");
    QVERIFY(panel->topDownView()->model()->rowCount() > 0);
    panel->setSearch("no_such_function_anywhere");
    QCOMPARE(panel->topDownView()->model()->rowCount(), 0);
    panel->setSearch(QString());
    // a selected range re-analyses what survives it
    QSignalSpy ready(panel, &ui::LeaksPanel::reportReady);
    timelineOf(*w)->setSelection(QCPRange(0.0, 0.2));
    QVERIFY(ready.wait(5000));
    QVERIFY(!panel->report().autoWindow);
    // the flame graph of the range's survivors (the model's, with frames) zooms into a clicked frame and
    // back out with Escape (the leak's region holds 7.50 KiB beside 33 MiB without a stack: no box wide
    // enough)
    panel->showView(3);
    ui::FlameGraph* flame = panel->flameGraph();
    flame->resize(800, 300);
    flame->repaint();
    const QPoint below(5, 25); // the first child row, left edge: the largest child of the root
    const uint32_t node = flame->nodeAt(below);
    QVERIFY(node != UINT32_MAX && node != 0);
    QTest::mouseClick(flame, Qt::LeftButton, {}, below);
    QCOMPARE(flame->zoomedNode(), node);
    QTest::keyClick(flame, Qt::Key_Escape);
    QCOMPARE(flame->zoomedNode(), 0u);
    // a click inside the range keeps it (and the Leaks tab on it); one outside lets go of it, where a
    // region under the click replaced the range's analysis with the range still drawn
    timelineOf(*w)->setVisibleRange(QCPRange(0.0, 6.0));
    timelineOf(*w)->replot();
    timelineOf(*w)->setSelection(QCPRange(0.0, 3.5));
    settle(*w);
    QVERIFY(timelineOf(*w)->regionAt(0, 3.0)); // the leak's region is under the click
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, pixelAt(timelineOf(*w), 3.0));
    settle(*w);
    QVERIFY(w->session()->range().has_value());
    QVERIFY(!regionsOf(*w)->selected().has_value());
    QVERIFY(!panel->report().autoWindow && !panel->report().region);
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, pixelAt(timelineOf(*w), 5.0));
    settle(*w);
    QVERIFY(!w->session()->range().has_value());
    QVERIFY(!timelineOf(*w)->selection().has_value());
}

void TestMainWindow::darkPaletteGivesDarkPlot() {
    const QPalette light = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(45, 45, 48));
    dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
    dark.setColor(QPalette::Base, QColor(30, 30, 32));
    dark.setColor(QPalette::Text, QColor(220, 220, 220));
    QApplication::setPalette(dark);
    auto w = open("mixed_sizes");
    const QImage img = timelineOf(*w)->toPixmap(900, 400).toImage();
    if (qEnvironmentVariableIsSet("VRAMSCOPE_SAVE_DARK"))
        img.save(qEnvironmentVariable("VRAMSCOPE_SAVE_DARK"));
    QApplication::setPalette(light);
    QVERIFY(img.pixelColor(img.width() / 2, img.height() / 10).lightness() < 100); // dark background
    int bright = 0; // the curves and labels stay readable: plenty of light pixels
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) bright += img.pixelColor(x, y).lightness() > 140;
    QVERIFY(bright > 200);
}

void TestMainWindow::blockMapFollowsAndSelects() {
    auto w = open("side_stream");
    w->showBlockMapTab();
    QApplication::processEvents();
    ui::BlockMapView* view = blockMapOf(*w)->view();
    const auto& t = timelineOf(*w)->analysis()->trace(0);
    QTRY_VERIFY(w->session()->peak() != nullptr);
    settle(*w);
    // nothing to report here (a deferred free): the capture opens on its peak, the block map there
    QCOMPARE(view->moment(), size_t(w->session()->peak()->event) + 1);
    w->session()->setMoment(t.eventCount());
    QCOMPARE(view->moment(), t.eventCount());
    QCOMPARE(view->segments().size(), t.finalSegments.size());
    // find an allocated block on screen, check the tooltip text, click it: its alloc event is selected
    const auto found = findAllocatedBlock(view);
    QVERIFY(found.has_value());
    const auto [at, b] = *found;
    QVERIFY(view->describe(view->hitTest(at)).contains("active_allocated"));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(eventTableOf(*w)->currentIndex().row(), int(b.allocEvent));
    QCOMPARE(t.action[b.allocEvent], Action::Alloc);
    QCOMPARE(view->moment(), t.eventCount()); // the map stays at the moment the user looks at
    // selecting an event moves the block map to that moment: the state equals the replay's
    eventTableOf(*w)->selectRow(10);
    QCOMPARE(view->moment(), size_t(11));
    const auto want =
        Replay::stateAfter(t, timelineOf(*w)->analysis()->capture().streams,
                           timelineOf(*w)->analysis()->replay(0), timelineOf(*w)->analysis()->rules(), 11);
    QCOMPARE(view->segments().size(), want.size());
    // zoom changes the scale, not the state
    view->setZoom(8);
    QCOMPARE(view->segments().size(), want.size());
}

void TestMainWindow::fragmentationOnTheTimeline() {
    auto w = open("mixed_sizes");
    w->waitForBackgroundWork();
    QCPGraph* largest = nullptr;
    QCPGraph* marks = nullptr;
    for (int i = 0; i < timelineOf(*w)->graphCount(); ++i) {
        if (timelineOf(*w)->graph(i)->name() == "largest free block") largest = timelineOf(*w)->graph(i);
        if (timelineOf(*w)->graph(i)->name() == "would need a new segment") marks = timelineOf(*w)->graph(i);
    }
    QVERIFY(largest && marks);
    QVERIFY(largest->data()->size() > 100);
    // never above the reserved memory, and the peak of the largest free block is real free space
    const auto& r = timelineOf(*w)->analysis()->replay(0);
    double top = 0;
    for (auto it = largest->data()->constBegin(); it != largest->data()->constEnd(); ++it)
        top = std::max(top, it->value);
    QVERIFY(top > 0);
    QVERIFY(top <= double(r.peak.reserved));
}

void TestMainWindow::memoryMapClickMovesTheBlockMap() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    ui::MemoryMapView* map = memoryMapOf(*w);
    const OccupancyGrid& g = map->grid();
    QCOMPARE(g.columns, 800);
    QVERIFY(g.packedBytes > 0);
    // the last column agrees with the end state: some allocated cells, and no cell outside reserved memory
    int allocated = 0;
    for (int r = 0; r < g.rows; ++r) allocated += g.at(r, g.columns - 1) == OccupancyGrid::Allocated;
    QVERIFY(allocated > 0);
    map->resize(800, 300);
    if (qEnvironmentVariableIsSet("VRAMSCOPE_SAVE_MAP"))
        map->grab().save(qEnvironmentVariable("VRAMSCOPE_SAVE_MAP"));
    const QPoint mid(map->width() / 2, map->height() / 2);
    const auto [c, row] = map->cellAt(mid);
    QVERIFY(c >= 0 && row >= 0);
    QTest::mouseClick(map, Qt::LeftButton, {}, mid);
    QCOMPARE(blockMapOf(*w)->view()->moment(), size_t(g.columnEvents[size_t(c)]));
}

void TestMainWindow::blockMapExpandableRangesGrowAndZoom() {
    auto w = open("expandable");
    w->showBlockMapTab();
    QApplication::processEvents();
    ui::BlockMapView* view = blockMapOf(*w)->view();
    const auto& t = timelineOf(*w)->analysis()->trace(0);
    // each segment_map grows the mapped ranges by exactly its size, all of them expandable
    bool allExpandable = true;
    auto reserved = [&] {
        uint64_t total = 0;
        for (const auto& s : view->segments()) total += s.size, allExpandable &= s.expandable;
        return total;
    };
    int maps = 0;
    for (size_t i = 0; i < t.eventCount(); ++i) {
        if (t.action[i] != Action::SegmentMap) continue;
        view->setMoment(i);
        const uint64_t before = reserved();
        view->setMoment(i + 1);
        QCOMPARE(reserved(), before + t.size[i]);
        ++maps;
    }
    QVERIFY(maps >= 3);
    QVERIFY(allExpandable);
    // double-clicking a segment zooms into it: it then fills the view from the top
    view->setMoment(t.eventCount());
    const double fitted = view->zoom();
    size_t smallest = 0;
    for (size_t s = 1; s < view->segments().size(); ++s)
        if (view->segments()[s].size < view->segments()[smallest].size) smallest = s;
    view->zoomToSegment(smallest);
    QVERIFY(view->zoom() > fitted);
    const auto zoomed = view->hitTest({view->viewport()->width() / 2, 8});
    QCOMPARE(zoomed.segment, int(smallest));
    // clicking an allocated block shades its lifetime on the timeline
    const auto found = findAllocatedBlock(view);
    QVERIFY(found.has_value());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, found->first);
    int visibleRects = 0;
    for (int i = 0; i < timelineOf(*w)->itemCount(); ++i)
        if (auto* r = qobject_cast<QCPItemRect*>(timelineOf(*w)->item(i)); r && r->visible()) ++visibleRects;
    QVERIFY(visibleRects >= 1); // the lifetime span
}

void TestMainWindow::screenshotWritesAskedSize() {
    QTemporaryDir dir;
    for (const QString view : {"timeline", "blockmap", "memorymap", "leaks", "window"}) {
        const QString out = dir.filePath(view + ".png");
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_GUI), {QString::fromStdString(vs::test::samplePath("leak_cut")),
                                                "--screenshot", out, "--view", view, "--size", "800x500"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QImage img(out);
        QCOMPARE(img.size(), QSize(800, 500));
    }
    QProcess bad;
    bad.start(QStringLiteral(VRAMSCOPE_GUI), {"/nonexistent.pickle", "--screenshot", dir.filePath("x.png")});
    QVERIFY(bad.waitForFinished(30000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("cannot open"));
}

// `vramscope FOLDER` opens the ranks view as File > Open Ranks Folder… does (issue 47: a folder could
// not be opened from the command line): in the window, and headless with --screenshot.
void TestMainWindow::folderOpensTheRanksView() {
    QTemporaryDir dir;
    for (int r = 0; r < 3; ++r)
        QVERIFY(QFile::copy(QString::fromStdString(vs::test::samplePath("leak_cut")),
                            dir.filePath(QString("rank%1.pickle.gz").arg(r))));
    MainWindow w;
    w.openFile(dir.path());
    auto* ranks = w.findChild<vs::ui::RanksWindow*>();
    QVERIFY(ranks);
    QTRY_VERIFY_WITH_TIMEOUT(ranks->ranks() != nullptr, 30000);
    QCOMPARE(ranks->ranks()->readable(), size_t(3));
    QVERIFY(ranks->isVisible());
    QVERIFY(!w.session()->isOpen()); // the folder is not a capture of this window
    const QString out = dir.filePath("ranks.png");
    QProcess p;
    p.start(QStringLiteral(VRAMSCOPE_GUI), {dir.path(), "--screenshot", out, "--size", "1400x900"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1400, 900));
    QTemporaryDir empty;
    QFile junk(empty.filePath("rank0.pickle"));
    QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write("not a pickle") > 0);
    junk.close();
    p.start(QStringLiteral(VRAMSCOPE_GUI), {empty.path(), "--screenshot", out});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(p.readAllStandardError().contains("None of the 1 files could be read"), "");
}

// Open a capture with a problem: its worst region is selected, shaded and explained without any input.
// The growth analysis is the session's: one job per cold open whatever asks for it (timeline,
// Regions list, Leaks tab, status bar, title), and the regions are drawn though the Leaks tab was
// never brought forward; the findings line and the title count the findings.
void TestMainWindow::growthAnalysedOncePerOpen() {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis("accumulation", accumulationCapture());
    QCOMPARE(w->session()->growthRuns(), size_t(1)); // started on open, before any view asked
    QVERIFY(!w->session()->growth());                // in the background
    QTRY_VERIFY(w->session()->growth() != nullptr);
    settle(*w);
    QCOMPARE(w->session()->growthRuns(), size_t(1)); // the Leaks tab, the regions and the ramp share it
    const GrowthRegions& g = *w->session()->growth()->regions;
    QCOMPARE(g.findings.size(), size_t(1)); // three teeth of one sawtooth: one finding
    QCOMPARE(g.findings.front().repeats, uint32_t(3));
    QCOMPARE(regionsOf(*w)->regions().size(), g.regions.size()); // the very regions, shared
    const GrowthRegion& tooth = g.regionOf(g.findings.front());
    QVERIFY(timelineOf(*w)->regionAt(0, (secondsOf(*w, tooth.first) + secondsOf(*w, tooth.last)) / 2));
    const auto* line = leaksOf(*w)->findChild<QLabel*>(QStringLiteral("leakFindings"));
    QVERIFY(line);
    QVERIFY2(line->text().contains(QStringLiteral("1 finding:")) &&
                 line->text().contains(QStringLiteral("(3 times)")),
             qPrintable(line->text()));
    QVERIFY2(w->windowTitle().contains(QStringLiteral("1 finding")), qPrintable(w->windowTitle()));
    // a finding's link selects its region, as a click on its ramp does
    w->session()->selectRegion(std::nullopt);
    const int index = int(g.findings.front().region);
    QVERIFY(QMetaObject::invokeMethod(const_cast<QLabel*>(line), "linkActivated",
                                      Q_ARG(QString, QStringLiteral("#%1").arg(index))));
    QCOMPARE(w->session()->regionIndex(), index);
    QCOMPARE(w->session()->region()->first, tooth.first);
    // another device or a grown live capture asks again; the same capture's questions do not
    timelineOf(*w)->setSelection(QCPRange(secondsOf(*w, tooth.first), secondsOf(*w, tooth.last)));
    settle(*w);
    QCOMPARE(w->session()->growthRuns(), size_t(1));
}

// Steps of a training loop with an evaluation in the middle whose outputs (kept for the whole evaluation,
// then dropped) raise the peak to 3x a step's: nothing grows, so the window opens on the peak.
ui::AnalysisPtr evaluationSpikeCapture(uint32_t* spikeTop) {
    vs::test::SyntheticLoop loop;
    loop.alloc(32 << 20, loop.stack({{"build_model", 10}}));
    const StackId act = loop.stack({{"forward", 30}, {"train", 60}});
    const StackId out = loop.stack({{"evaluate", 44}, {"main", 90}});
    auto trainStep = [&] {
        loop.annotate("forward");
        const uint64_t a = loop.alloc(16 << 20, act);
        loop.annotate("forward", false), loop.annotate("backward");
        loop.free(a, 16 << 20, act);
        loop.annotate("backward", false);
    };
    for (int i = 0; i < 8; ++i) trainStep();
    std::vector<uint64_t> kept;
    for (int i = 0; i < 6; ++i) {
        loop.annotate("forward");
        kept.push_back(loop.alloc(16 << 20, out));
        loop.annotate("forward", false);
    }
    *spikeTop = uint32_t(loop.t().eventCount() - 1);
    for (uint64_t k : kept) loop.free(k, 16 << 20, out);
    for (int i = 0; i < 8; ++i) trainStep();
    return CaptureAnalysis::analyse(loop.take());
}

void TestMainWindow::quietRunOpensOnItsPeak() {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    uint32_t top = 0;
    w->setAnalysis("evaluation", evaluationSpikeCapture(&top));
    QTRY_VERIFY(w->session()->peak() != nullptr && w->session()->growth() != nullptr);
    settle(*w);
    QVERIFY2(w->session()->growth()->regions->findings.empty(), "an evaluation that lets go is no finding");
    // the peak is selected without a click: the event at the evaluation's top, its tab in front
    QCOMPARE(w->session()->selectedEvent().value_or(0), size_t(top));
    auto* peak = w->findChild<ui::PeakPanel*>(QStringLiteral("peakPanel"));
    QVERIFY(peak);
    QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(peak));
    const QString text = peak->summaryText();
    QVERIFY2(text.contains(QStringLiteral("128.00 MiB")) && text.contains(QStringLiteral("evaluation 1")) &&
                 text.contains(QStringLiteral("evaluate (train.py:44)")),
             qPrintable(text));
    // the phase table: the evaluation row holds the peak; double-clicking a step's row goes to its peak
    QTreeView* phases = peak->phasesView();
    QVERIFY(phases->model()->rowCount() >= 3);
    int evaluation = -1;
    for (int r = 0; r < phases->model()->rowCount(); ++r)
        if (phases->model()->index(r, 0).data().toString() == QStringLiteral("evaluation 1")) evaluation = r;
    QVERIFY(evaluation > 0);
    QCOMPARE(phases->model()->index(evaluation, 3).data().toString(), QStringLiteral("128.00 MiB"));
    emit phases->doubleClicked(phases->model()->index(0, 0));
    QVERIFY(w->session()->selectedEvent().value_or(top) != top);
    // Go > Peak comes back to it, on the Peak tab (it showed the peak's stack instead)
    w->session()->selectEvent(0);
    QAction* go = nullptr;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text() == QStringLiteral("Pea&k")) go = a;
    QVERIFY(go);
    go->trigger();
    QCOMPARE(w->session()->selectedEvent().value_or(0), size_t(top));
    QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(peak));
}

void TestMainWindow::outOfMemoryOpensAtTheFailure() {
    vs::test::SyntheticLoop loop;
    const StackId keep = loop.stack({{"remember", 12}, {"train", 60}});
    for (int i = 0; i < 12; ++i) loop.step(4 << 20), loop.alloc(8 << 20, keep);
    loop.oom(64 << 20);
    const uint32_t oom = uint32_t(loop.t().eventCount() - 1);
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis("oom", CaptureAnalysis::analyse(loop.take()));
    QTRY_VERIFY(w->session()->growth() != nullptr);
    settle(*w);
    QCOMPARE(w->session()->selectedEvent().value_or(0), size_t(oom));
    QCOMPARE(w->findChild<QTabWidget*>()->currentWidget(), static_cast<QWidget*>(leaksOf(*w)));
    const LeakReport& rep = leaksOf(*w)->report();
    QCOMPARE(rep.kind, LeakKind::Oom);
    QVERIFY(rep.oom.has_value());
    QCOMPARE(rep.oom->cause, OomCause::Leak);
    QVERIFY2(rep.summary.find("remember (train.py:12)") != std::string::npos, rep.summary.c_str());
    // the block map at the failure: the request beside the largest free block (none: a segment per block)
    w->showBlockMapTab();
    QTRY_VERIFY(!blockMapOf(*w)->view()->replaying());
    QApplication::processEvents();
    bool said = false;
    for (auto* label : blockMapOf(*w)->findChildren<QLabel*>())
        said |= label->text().contains(QStringLiteral("Out of memory here:</b> a request of 64.0 MiB"));
    QVERIFY(said);
    // ...and drawn: the request's bar beside the largest free block's (none here), shown only there
    auto* bars = blockMapOf(*w)->findChild<ui::OomRequestBars*>();
    QVERIFY(bars && bars->isVisible());
    QCOMPARE(bars->request(), uint64_t(64) << 20);
    QCOMPARE(bars->largestFree(), uint64_t(0));
    w->session()->selectEvent(0);
    QTRY_VERIFY(!bars->isVisible());
}

void TestMainWindow::coldOpenSelectsTheWorstRegion() {
    auto w = openAccumulation();
    ui::RegionSelector* sel = regionsOf(*w);
    QCOMPARE(sel->regions().size(), size_t(3));
    for (const auto& r : sel->regions()) QCOMPARE(r.kind, LeakKind::Accumulation);
    QVERIFY2(sel->selected().has_value(), leaksOf(*w)->report().summary.c_str());
    const GrowthRegion worst = *sel->selected();
    for (const auto& r : sel->regions()) QVERIFY(r.cost <= worst.cost);
    QCOMPARE(worst.allocations.size(), size_t(10)); // one epoch's
    // shaded over exactly the region's times
    const auto shade = timelineOf(*w)->growthRegion();
    QVERIFY(shade.has_value());
    QCOMPARE(shade->lower, secondsOf(*w, worst.first));
    QCOMPARE(shade->upper, secondsOf(*w, worst.last));
    const QImage img = timelineOf(*w)->toPixmap().toImage();
    const QColor inside = img.pixelColor(pixelAt(timelineOf(*w), (shade->lower + shade->upper) / 2));
    const QColor outside =
        img.pixelColor(pixelAt(timelineOf(*w), shade->upper + (shade->upper - shade->lower) * 0.6));
    auto reddish = [](const QColor& c) { return c.red() > c.green() + 8 && c.red() > c.blue() + 8; };
    QVERIFY2(reddish(inside) && !reddish(outside),
             qPrintable(QString("inside %1, outside %2").arg(inside.name(), outside.name())));
    // explained in the visible Leaks tab, listed as the current row, named in the status bar
    const LeakReport& rep = leaksOf(*w)->report();
    QCOMPARE(rep.kind, LeakKind::Accumulation);
    QVERIFY(rep.region.has_value());
    QCOMPARE(rep.region->first, worst.first);
    QCOMPARE(rep.region->last, worst.last);
    QVERIFY(leaksOf(*w)->isVisible());
    QCOMPARE(leaksOf(*w)->regionList()->currentRegion(), sel->selectedIndex());
    QVERIFY2(w->regionStatus().startsWith("accumulation: 10.0 MiB over"), qPrintable(w->regionStatus()));
    // the block map at the region's top, its kept blocks marked
    QCOMPARE(blockMapOf(*w)->view()->moment(), size_t(worst.last) + 1);
    QCOMPARE(blockMapOf(*w)->view()->markedAlive(), worst.allocations.size());
}

// A tick of the selected Leaks group is one of its allocations: a click on it selects that event, not
// the event nearest the click, and leaves the region and the group as they are.
void TestMainWindow::clickOnALeakTickSelectsThatAllocation() {
    auto w = open("leak_list");
    w->resize(1280, 800);
    w->show();
    settle(*w);
    const SurvivorGroup top = leaksOf(*w)->report().groups.front();
    const uint32_t alloc = top.lastEvent; // its last survivor
    QCPAxisRect* rect = timelineOf(*w)->axisRect(0);
    const TimeFold& fold = timelineOf(*w)->fold();
    const int x =
        int(std::lround(rect->axis(QCPAxis::atBottom)->coordToPixel(fold.toAxis(secondsOf(*w, alloc)))));
    const auto regionBefore = leaksOf(*w)->report().region;
    auto* events = static_cast<ui::EventTableModel*>(eventTableOf(*w)->model());
    const double beside = fold.toSeconds(rect->axis(QCPAxis::atBottom)->pixelToCoord(x + 2));
    QVERIFY(events->eventAtTime(beside) != int64_t(alloc)); // the event nearest the click is another
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {},
                      QPoint(x + 2, rect->bottom() - 2)); // 2 px beside it
    settle(*w);
    QCOMPARE(eventTableOf(*w)->currentEvent(), int64_t(alloc));
    QCOMPARE(leaksOf(*w)->report().groups.front().stack, top.stack); // the group stays selected
    QCOMPARE(leaksOf(*w)->report().region.has_value(), regionBefore.has_value());
    // above the ticks' band a click selects the event under it as before
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, QPoint(x + 2, rect->top() + rect->height() / 2));
    QCOMPARE(eventTableOf(*w)->currentEvent(), int64_t(events->eventAtTime(beside)));
}

// A click on another tooth selects it: the Leaks tab explains that region; Ctrl+] / Ctrl+[ step.
void TestMainWindow::clickOnARampSelectsItsRegion() {
    auto w = openAccumulation();
    ui::RegionSelector* sel = regionsOf(*w);
    const int before = sel->selectedIndex();
    const int other = before == 0 ? 1 : 0;
    const GrowthRegion target = sel->regions()[size_t(other)];
    const double at = (secondsOf(*w, target.first) + secondsOf(*w, target.last)) / 2;
    const QPoint px = pixelAt(timelineOf(*w), at);
    // hovering names it and bands it
    mouse(timelineOf(*w), QEvent::MouseMove, px, Qt::NoButton);
    QCOMPARE(timelineOf(*w)->hoveredRegion(0), other);
    QVERIFY(timelineOf(*w)->regionAt(0, at)->label.startsWith("accumulation: "));
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, px);
    settle(*w);
    QCOMPARE(sel->selectedIndex(), other);
    const LeakReport& rep = leaksOf(*w)->report();
    QVERIFY(rep.region.has_value());
    QCOMPARE(rep.region->first, target.first);
    QCOMPARE(rep.region->last, target.last);
    QCOMPARE(timelineOf(*w)->growthRegion()->lower, secondsOf(*w, target.first));
    QCOMPARE(blockMapOf(*w)->view()->moment(), size_t(target.last) + 1);
    QCOMPARE(leaksOf(*w)->regionList()->currentRegion(), other);
    // the click also selected the event under it, without moving the block map away
    auto* model = static_cast<ui::EventTableModel*>(eventTableOf(*w)->model());
    QCOMPARE(eventTableOf(*w)->currentEvent(),
             int64_t(model->eventAtTime(
                 timelineOf(*w)->axisRect(0)->axis(QCPAxis::atBottom)->pixelToCoord(px.x()))));
    // flat ground (the tail after the last release): no region, the event there is selected
    const double flat = secondsOf(*w, uint32_t(timelineOf(*w)->analysis()->trace(0).eventCount() - 4));
    QVERIFY(!timelineOf(*w)->regionAt(0, flat));
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, pixelAt(timelineOf(*w), flat));
    QVERIFY(stackOf(*w)->isVisible()); // flat ground: the event's stack, as before regions
    const QPoint flatPx = pixelAt(timelineOf(*w), flat);
    QCOMPARE(eventTableOf(*w)->currentEvent(),
             int64_t(model->eventAtTime(
                 timelineOf(*w)->axisRect(0)->axis(QCPAxis::atBottom)->pixelToCoord(flatPx.x()))));
    QCOMPARE(sel->selectedIndex(), other); // still the region clicked before
    // stepping in time order from the first tooth: Next gives the second, Previous the first again
    std::vector<size_t> order = {0, 1, 2};
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return sel->regions()[a].first < sel->regions()[b].first; });
    sel->select(int(order[0]));
    w->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    QTest::keyClick(w.get(), Qt::Key_BracketRight, Qt::ControlModifier);
    QCOMPARE(sel->selectedIndex(), int(order[1]));
    QTest::keyClick(w.get(), Qt::Key_BracketLeft, Qt::ControlModifier);
    QCOMPARE(sel->selectedIndex(), int(order[0]));
    // the Regions list: one row per region; choosing a row selects it
    ui::RegionListView* list = leaksOf(*w)->regionList();
    QCOMPARE(list->model()->rowCount(), 3);
    list->setCurrentIndex(list->model()->index(2, 0)); // sorted by start: the last tooth
    QCOMPARE(sel->selectedIndex(), int(order[2]));
    settle(*w);
}

// Zoomed in to about one iteration on flat ground, a click selects that iteration's rise.
void TestMainWindow::zoomedInClickSelectsAnIterationsRise() {
    auto w = openAccumulation();
    const auto& t = timelineOf(*w)->analysis()->trace(0);
    // the last step of the tail: heartbeat (5 events), alloc a, alloc b (2 each), free b, free a (3 each)
    const auto n = uint32_t(t.eventCount());
    const uint32_t allocA = n - 9;
    QCOMPARE(t.action[allocA], Action::Alloc);
    const double from = secondsOf(*w, n - 15), to = secondsOf(*w, n - 1);
    timelineOf(*w)->setVisibleRange(QCPRange(from, to + (to - from) * 0.2));
    timelineOf(*w)->replot();
    const double at = (secondsOf(*w, allocA) + secondsOf(*w, allocA + 1)) / 2; // between the two allocations
    QVERIFY(!timelineOf(*w)->regionAt(0, at));
    QTest::mouseClick(timelineOf(*w), Qt::LeftButton, {}, pixelAt(timelineOf(*w), at));
    const auto& sel = regionsOf(*w)->selected();
    QVERIFY(sel.has_value());
    QCOMPARE(sel->kind, LeakKind::Transient);
    QCOMPARE(sel->growthBytes, uint64_t(4 << 20)); // both activations: the rise of that forward pass
    QCOMPARE(regionsOf(*w)->selectedIndex(), -1);  // not a listed region
    settle(*w);
    QVERIFY(leaksOf(*w)->report().region.has_value());
    QCOMPARE(leaksOf(*w)->report().region->kind, LeakKind::Transient);
}

// A Leaks group marks its allocations on the timeline inside the lane and the region, in the block
// map, and on request in the event list.
void TestMainWindow::groupMarksLineUpAcrossViews() {
    auto w = openAccumulation();
    QVERIFY(regionsOf(*w)->selected().has_value());
    const GrowthRegion region = *regionsOf(*w)->selected();
    ui::LeaksPanel* panel = leaksOf(*w);
    QVERIFY(panel->groupRows() > 0);
    panel->selectGroup(0);
    QCPGraph* marks = nullptr;
    for (int i = 0; i < timelineOf(*w)->graphCount(); ++i)
        if (timelineOf(*w)->graph(i)->name() == "allocations of the selected Leaks group")
            marks = timelineOf(*w)->graph(i);
    QVERIFY(marks && marks->data()->size() > 0);
    QCPAxisRect* rect = timelineOf(*w)->axisRect(0);
    const double lo = secondsOf(*w, region.first), hi = secondsOf(*w, region.last);
    for (auto it = marks->data()->constBegin(); it != marks->data()->constEnd(); ++it) {
        const double px = rect->axis(QCPAxis::atBottom)->coordToPixel(it->key);
        QVERIFY2(px >= rect->left() && px <= rect->right(), qPrintable(QString::number(px)));
        QVERIFY(it->key >= lo && it->key <= hi); // inside the shaded region: one clock for both
    }
    QCOMPARE(blockMapOf(*w)->view()->markedAlive(), size_t(marks->data()->size()));
    // "Show allocations in the event list": those rows marked, the first selected
    const SurvivorGroup& g = panel->report().groups.front();
    emit panel->showAllocationsRequested(0, [&] {
        QVector<quint32> e;
        for (uint32_t a : g.allocations) e.push_back(panel->lifetimes()[a].alloc);
        std::sort(e.begin(), e.end());
        return e;
    }());
    auto* model = static_cast<ui::EventTableModel*>(eventTableOf(*w)->model());
    QCOMPARE(model->markedEvents().size(), size_t(g.count));
    const int first = eventTableOf(*w)->currentIndex().row();
    QCOMPARE(uint32_t(first), model->markedEvents().front());
    QVERIFY(model->data(model->index(first, 0), Qt::BackgroundRole).isValid()); // tinted
    QVERIFY(!model->data(model->index(first + 1, 0), Qt::BackgroundRole).isValid());
    w->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(w.get()));
    QTest::keyClick(w.get(), Qt::Key_F3); // Go > Next Marked Event
    QCOMPARE(uint32_t(eventTableOf(*w)->currentIndex().row()), model->markedEvents()[1]);
}

void TestMainWindow::leaksTreesFoldLibraryFrames() {
    // A Lightning program: its steps run inside site-packages/lightning and torch frames
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    const QString path = vs::test::samplesDir() + "/../real/lightning_outputs_accumulation.vscap";
    w->setAnalysis(path, ui::CaptureLoader::openNow(path));
    settle(*w);
    ui::LeaksPanel* panel = leaksOf(*w);
    auto locations = [&] {
        QStringList out; // every node's file, depth first
        QAbstractItemModel* m = panel->topDownView()->model();
        std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
            for (int r = 0; r < m->rowCount(parent); ++r) {
                out << m->index(r, ui::CallTreeModel::Location, parent).data().toString();
                walk(m->index(r, 0, parent));
            }
        };
        walk({});
        return out;
    };
    auto fromLibraries = [](const QStringList& l) {
        return std::count_if(l.begin(), l.end(),
                             [](const QString& f) { return f.contains("site-packages/"); });
    };
    const QStringList folded = locations();
    QVERIFY(!folded.isEmpty());
    QCOMPARE(fromLibraries(folded), 0);
    QVERIFY(folded.join(' ').contains("lightning_outputs.py:32")); // the user's own allocation site stays
    const QList<QCheckBox*> boxes = panel->findChildren<QCheckBox*>();
    auto it =
        std::find_if(boxes.begin(), boxes.end(), [](QCheckBox* b) { return b->text().contains("Library"); });
    QVERIFY(it != boxes.end());
    (*it)->setChecked(true);
    QVERIFY(fromLibraries(locations()) > 0);                    // shown on request
    QVERIFY(QSettings().value("leaks/libraryFrames").toBool()); // and remembered
    (*it)->setChecked(false);
}

void TestMainWindow::manyWarningsKeepTheWindowUsable() {
    // 64 devices, each one allocation that no snapshot block list confirms: two warnings a device.
    // The banner shows three and a link to the rest, so the views keep the window.
    vs::test::PickleBuilder p;
    p.proto(4).emptyDict().mark().str("segments").emptyList().str("device_traces").emptyList().mark();
    p.emptyList().mark(); // memo 5: the one trace every device shares
    p.emptyDict().mark().str("action").str("alloc").str("addr").integer(1 << 20).str("size").integer(512);
    p.str("time_us").integer(1700000000000000).setitems().appends();
    for (int i = 1; i < 64; ++i) p.get(5);
    p.appends().setitems().stop();
    QTemporaryDir dir;
    const QString path =
        writeFile(dir, "devices.pickle",
                  std::string_view(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size()));
    QVERIFY(!path.isEmpty());
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    settle(w);
    const size_t all = w.session()->analysis()->warnings().size();
    QVERIFY2(all >= 64, qPrintable(QString::number(all)));
    auto* banner = w.findChild<QLabel*>("warnings");
    QVERIFY(banner && banner->isVisibleTo(&w));
    QCOMPARE(banner->text().count(QChar(0x26a0)), 3);
    QVERIFY2(banner->text().contains(QString("show all %1 warnings").arg(all)), qPrintable(banner->text()));
    QVERIFY2(banner->height() < 120, qPrintable(QString::number(banner->height())));
    QVERIFY(timelineOf(w)->height() > 200);
}

void TestMainWindow::everyDeviceBrowsable() {
    // two H200s whose traces start 0.35 s apart (recorded by the CUPTI agent)
    const auto window = openSample("/../cuda/torch_two_devices.vscap");
    MainWindow& w = *window;
    ui::Session* s = w.session();
    const ui::AnalysisPtr a = s->analysis();
    QCOMPARE(a->deviceCount(), size_t(2));
    auto* box = w.findChild<QComboBox*>("deviceBox");
    QVERIFY(box && box->isVisibleTo(&w));
    QCOMPARE(box->count(), 2);
    QVERIFY(box->itemText(0).contains("NVIDIA H200"));
    const size_t first = s->device(), other = 1 - first;
    auto followed = [&](size_t d) {
        return s->device() == d && box->currentIndex() == int(d) && leaksOf(w)->device() == d &&
               blockMapOf(w)->device() == d &&
               static_cast<ui::EventTableModel*>(eventTableOf(w)->model())->device() == d;
    };
    QVERIFY(followed(first));
    // a click in the other device's lane selects that device, and an event of it
    TimelinePlot* plot = timelineOf(w);
    const QPoint at = plot->axisRect(int(other))->rect().center();
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    settle(w);
    QVERIFY(followed(other));
    QVERIFY(s->selectedEvent().has_value());
    QVERIFY(*s->selectedEvent() < a->trace(other).eventCount());
    // one clock: the timeline's origin is the capture's; the Leaks window of the later device is
    // shaded where its events are, not at 0
    QCOMPARE(plot->originUs(), a->originUs());
    const size_t later = a->trace(0).timeUs.front() > a->trace(1).timeUs.front() ? 0 : 1;
    box->setCurrentIndex(int(later));
    emit box->activated(int(later));
    settle(w);
    QVERIFY(followed(later));
    const LeakReport& rep = leaksOf(w)->report();
    const double from = s->secondsAt(later, rep.first);
    QVERIFY2(from > 0.3, qPrintable(QString::number(from)));
    if (auto shade = plot->growthRegion())
        QVERIFY(std::abs(shade->lower - from) < 0.05 || shade->lower > 0.3);
}

void TestMainWindow::manyDevicesGetTheBusiestLanes() {
    // ten devices, device d makes d + 1 allocations of 1 MiB (the last ones are the busiest): lanes
    // for the four busiest; a device picked in the box takes the least busy one's lane
    vs::test::SyntheticLoop loop;
    const StackId keep = loop.stack({{"keep", 3}});
    for (int d = 0; d < 10; ++d) {
        if (d) loop.useDevice(d, 1700000000000000 + d * 1000);
        for (int i = 0; i <= d; ++i) loop.alloc(1 << 20, keep);
    }
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.setAnalysis("ten devices", CaptureAnalysis::analyse(loop.take()));
    settle(w);
    TimelinePlot* plot = timelineOf(w);
    QCOMPARE(plot->analysis()->deviceCount(), size_t(10));
    QCOMPARE(plot->shownDevices(), (std::vector<size_t>{6, 7, 8, 9}));
    QCOMPARE(plot->axisRectCount(), 4);
    QVERIFY(!plot->seriesGraph(0, TimelinePlot::Series::Allocated, true));
    QCOMPARE(w.session()->device(), size_t(9)); // the longest trace, as at any open
    auto* box = w.findChild<QComboBox*>("deviceBox");
    box->setCurrentIndex(2);
    emit box->activated(2);
    settle(w);
    QCOMPARE(plot->shownDevices(), (std::vector<size_t>{2, 7, 8, 9}));
    // each lane draws its device (device d keeps d + 1 MiB): the picked one and those whose level of
    // detail was kept through the rebuild; a click in the picked one's lane names it
    plot->fitAll();
    plot->replot();
    for (size_t d : plot->shownDevices()) {
        const QCPGraph* g = plot->seriesGraph(d, TimelinePlot::Series::Allocated, true);
        QVERIFY(g);
        double peak = 0;
        for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
            peak = std::max(peak, it->value);
        QCOMPARE(peak, double((d + 1) << 20));
    }
    QVERIFY(plot->tooltipAt(2, 0.0).contains("device 2"));
    QSignalSpy clicked(plot, &TimelinePlot::laneClicked);
    QTest::mouseClick(plot, Qt::LeftButton, {}, plot->axisRect(3)->rect().center());
    QCOMPARE(clicked.size(), 1);
    QCOMPARE(clicked.at(0).at(0).value<size_t>(), size_t(9));
    // marks for a device without a lane are ignored, not drawn on another device's lane
    const int graphs = plot->graphCount();
    plot->setMarkedTimes(0, {0.0});
    QCOMPARE(plot->graphCount(), graphs);
    bool said = false;
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* grid = qobject_cast<QCPLayoutGrid*>(plot->plotLayout()->elementAt(i)))
            for (int j = 0; j < grid->elementCount(); ++j)
                if (auto* text = qobject_cast<QCPTextElement*>(grid->elementAt(j)))
                    said = said || text->text().startsWith("4 of 10 devices");
    QVERIFY(said);
}

void TestMainWindow::openingAnotherFileLeavesNoState() {
    auto w = open("leak_list");
    settle(*w);
    TimelinePlot* plot = timelineOf(*w);
    const QRect area = plot->axisRect(0)->rect();
    mouse(plot, QEvent::MouseMove, area.center(), Qt::NoButton); // the cursor readout
    QTest::mouseClick(plot, Qt::LeftButton, {}, area.center());  // an event
    eventTableOf(*w)->scrollToBottom();
    settle(*w);
    QVERIFY(w->session()->selectedEvent().has_value());
    const QString second = QString::fromStdString(vs::test::samplePath("clean_loop"));
    w->setAnalysis(second, ui::CaptureLoader::openNow(second));
    QTRY_VERIFY(w->session()->peak() != nullptr);
    settle(*w);
    // nothing of the first is selected: a quiet run opens on its own peak
    QCOMPARE(w->session()->selectedEvent().value_or(0), size_t(w->session()->peak()->event));
    QVERIFY(!w->session()->range().has_value());
    QCOMPARE(eventTableOf(*w)->currentIndex().row(), int(w->session()->peak()->event));
    for (auto* label : w->statusBar()->findChildren<QLabel*>())
        QVERIFY2(!label->text().startsWith("t = "), qPrintable(label->text())); // no cursor time of the first
    QVERIFY(!w->findChild<QComboBox*>("deviceBox")->isVisibleTo(w.get()));      // one device: no picker
    QCOMPARE(w->session()->path(), second);
}

// A program that prepares its data for 6 s after its first allocation, then runs 4 ms of steps: the
// 6 s are folded into a narrow break (the steps fill the width, issue 46), the legend names it, and
// unfolding (View > Fold Idle Gaps) keeps the seconds shown while the gap takes its true width again.
void TestMainWindow::idleGapsAreFoldedAndUnfolded() {
    vs::test::SyntheticLoop loop;
    loop.step();
    loop.idle(6'000'000);
    for (int i = 0; i < 200; ++i) loop.step();
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.setAnalysis(QStringLiteral("idle_start"), CaptureAnalysis::analyse(loop.take()));
    settle(w);
    TimelinePlot* plot = timelineOf(w);
    QVERIFY(plot->foldsIdleGaps());
    QCOMPARE(plot->fold().gaps().size(), size_t(1));
    const IdleGap gap = plot->fold().gaps().front();
    QVERIFY(gap.to - gap.from > 5.99);
    auto gapPixels = [&] { // the lanes are built again at a toggle: the axis is asked for each time
        const QCPAxis* x = plot->axisRect(0)->axis(QCPAxis::atBottom);
        return x->coordToPixel(plot->fold().toAxis(gap.to)) - x->coordToPixel(plot->fold().toAxis(gap.from));
    };
    const int width = plot->axisRect(0)->width();
    QVERIFY2(gapPixels() < 0.04 * width, qPrintable(QString::number(gapPixels())));
    QVERIFY(plot->legendNames().join('|').contains("idle, folded"));
    // a moment after the gap is drawn where its seconds are: the visible range reads in seconds
    const QCPRange shown = plot->visibleRange();
    QVERIFY(shown.lower <= 0 && shown.upper >= gap.to);
    plot->setFoldIdleGaps(false);
    QVERIFY(!plot->fold().folded());
    QVERIFY(std::abs(plot->visibleRange().lower - shown.lower) < 1e-6);
    QVERIFY(std::abs(plot->visibleRange().upper - shown.upper) < 1e-6);
    QVERIFY2(gapPixels() > 0.9 * width, qPrintable(QString::number(gapPixels())));
    QVERIFY(!plot->legendNames().join('|').contains("idle, folded"));
    plot->setFoldIdleGaps(true);
    QVERIFY(gapPixels() < 0.04 * width);
}

// Two GPUs whose traces start 3 s apart; the later one leaks and ends in an OOM. Everything drawn for
// it (the growth shading, a Leaks group's ticks, the OOM marker, the selected event's line) sits at
// the pixel of its event's time since the *first device's* first event, computed here from the raw
// timestamps, and both lanes map a time to the same pixel column.
void TestMainWindow::twoDevicesLineUpInPixels() {
    vs::test::SyntheticLoop loop;
    for (int i = 0; i < 40; ++i) loop.step();
    loop.useDevice(1, 4'000'000);
    const StackId keep = loop.stack({{"cache_output", 33}, {"train_step", 21}});
    for (int i = 0; i < 30; ++i) loop.step(), loop.alloc(1 << 20, keep);
    loop.oom(uint64_t(64) << 30);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.setAnalysis(QStringLiteral("two_devices"), CaptureAnalysis::analyse(loop.take()));
    w.session()->setDevice(1);
    settle(w);
    const ui::AnalysisPtr a = w.session()->analysis();
    const DeviceTrace &first = a->trace(0), &later = a->trace(1);
    auto truth = [&](uint32_t e) { return double(later.timeUs[e] - first.timeUs.front()) / 1e6; };
    TimelinePlot* plot = timelineOf(w);
    QCPAxis* x0 = plot->axisRect(0)->axis(QCPAxis::atBottom);
    QCPAxis* x1 = plot->axisRect(1)->axis(QCPAxis::atBottom);
    auto px = [&](double seconds) { return x1->coordToPixel(plot->fold().toAxis(seconds)); };
    auto pxOf = [&](double axis) { return x1->coordToPixel(axis); }; // an item's or a graph's own key
    // zoomed onto device 1's run (2 ms): one event every ~5 pixels, so a wrong clock shows
    plot->setVisibleRange(QCPRange(truth(0) - 1e-4, truth(uint32_t(later.eventCount() - 1)) + 1e-4));
    settle(w);
    QVERIFY(px(truth(1)) - px(truth(0)) > 3);
    for (double at : {3.0, 3.001, 3.002})
        QCOMPARE(x0->coordToPixel(plot->fold().toAxis(at)), px(at)); // one column per moment
    QVERIFY(truth(0) > 2.9);
    // the growth shading: from the first kept allocation to the top of the ramp, on device 1's clock
    // (the OOM is the diagnosis here; the leak is the Regions list's first row)
    QVERIFY(!regionsOf(w)->regions().empty());
    regionsOf(w)->select(0);
    settle(w);
    const auto region = regionsOf(w)->selected();
    const auto shade = plot->growthRegion();
    QVERIFY(region && shade);
    QCOMPARE(region->kind, LeakKind::Leak);
    QVERIFY2(std::abs(px(shade->lower) - px(truth(region->first))) < 1,
             qPrintable(QString::number(shade->lower)));
    QVERIFY(std::abs(px(shade->upper) - px(truth(region->last))) < 1);
    // a Leaks group's ticks: one per kept allocation, each at its allocation's moment
    ui::LeaksPanel* panel = leaksOf(w);
    QVERIFY(panel->groupRows() > 0);
    panel->selectGroup(0);
    QCPGraph* marks = nullptr;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->keyAxis() == x1 &&
            plot->graph(i)->name() == "allocations of the selected Leaks group")
            marks = plot->graph(i);
    QVERIFY(marks);
    std::vector<double> expected;
    for (uint32_t i : panel->report().groups.front().allocations)
        expected.push_back(px(truth(panel->lifetimes()[i].alloc)));
    QCOMPARE(size_t(marks->data()->size()), expected.size());
    std::sort(expected.begin(), expected.end());
    size_t k = 0;
    for (auto it = marks->data()->constBegin(); it != marks->data()->constEnd(); ++it, ++k)
        QVERIFY(std::abs(pxOf(it->key) - expected[k]) < 1);
    // the OOM marker: a vertical line in device 1's lane at the OOM's moment
    const uint32_t oom = uint32_t(later.eventCount() - 1);
    QCOMPARE(later.action[oom], Action::Oom);
    bool oomLine = false;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
            oomLine |= line->clipAxisRect() == plot->axisRect(1) &&
                       std::abs(pxOf(line->point1->coords().x()) - px(truth(oom))) < 1;
    QVERIFY(oomLine);
    // the selected event's line (event 7 is far from the OOM: not its line)
    QVERIFY(std::abs(px(truth(7)) - px(truth(oom))) > 10);
    eventTableOf(w)->selectRow(7);
    settle(w);
    bool eventLine = false;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* line = qobject_cast<QCPItemStraightLine*>(plot->item(i)))
            eventLine |= line->visible() && line->clipAxisRect() == plot->axisRect(1) &&
                         std::abs(pxOf(line->point1->coords().x()) - px(truth(7))) < 1;
    QVERIFY(eventLine);
}

// A moment chosen while the Block map tab is hidden costs nothing there; showing the tab replays it
// off the GUI thread ("Replaying…" until then) and shows exactly the state the replay gives.
void TestMainWindow::hiddenBlockMapReplaysInTheBackground() {
    auto w = open("mixed_sizes");
    settle(*w);
    ui::BlockMapView* view = blockMapOf(*w)->view();
    const size_t row = 40;
    eventTableOf(*w)->selectRow(int(row)); // the Stack tab is shown: the map is hidden
    QApplication::processEvents();
    QVERIFY(!view->isVisible());
    QCOMPARE(w->session()->moment(), row + 1); // the session's moment, which the map follows
    QCOMPARE(view->moment(), row + 1);
    w->showBlockMapTab();
    QVERIFY(view->replaying()); // asked of the session's runner, not replayed here
    w->waitForBackgroundWork();
    QTRY_VERIFY(!view->replaying());
    const ui::AnalysisPtr a = w->analysis();
    const auto truth =
        Replay::stateAfter(a->trace(0), a->capture().streams, a->replay(0), a->rules(), row + 1);
    uint64_t want = 0, got = 0;
    for (const auto& s : truth) want += s.size;
    for (const auto& s : view->segments()) got += s.size;
    QCOMPARE(view->segments().size(), truth.size());
    QCOMPARE(got, want);
    QCOMPARE(int64_t(got), a->replay(0).reserved[row]); // the reserved bytes after that event
}

// A damaged .vscap: the loader reports it as damaged (the window offers the intact part, not just an
// error), and opening with openIntactPart reads the chunks before the damage, with the warning.
void TestMainWindow::damagedCaptureOffersTheIntactPart() {
    const auto full = loadCaptureFile(vs::test::samplePath("mixed_sizes"), {});
    vscap::Writer::Options o;
    o.chunkBytes = 400, o.eventsPerRecord = 40;
    std::string bytes = encodeVscap(*full, o);
    bytes[bytes.size() / 2] ^= 0x20;
    QTemporaryDir dir;
    const QString path = writeFile(dir, "damaged.vscap", bytes);
    QVERIFY(!path.isEmpty());
    ui::CaptureLoader loader;
    QSignalSpy damaged(&loader, &ui::CaptureLoader::damaged), failed(&loader, &ui::CaptureLoader::failed),
        loaded(&loader, &ui::CaptureLoader::loaded);
    loader.open(path);
    QTRY_COMPARE(damaged.count(), 1);
    QCOMPARE(failed.count(), 0);
    QVERIFY2(damaged[0][1].toString().startsWith("the capture is damaged at byte "),
             qPrintable(damaged[0][1].toString()));
    loader.openWith(path, {std::nullopt, true});
    QTRY_COMPARE(loaded.count(), 1);
    const auto a = loaded[0][1].value<ui::AnalysisPtr>();
    QVERIFY(a->trace(0).eventCount() > 0 && a->trace(0).eventCount() < full->devices[0].eventCount());
    QVERIFY2(a->warnings().front().find("the capture is damaged at byte ") == 0,
             a->warnings().front().c_str());
}

void TestMainWindow::eventTableFitsAt1280() {
    // stacks=all: sites far wider than the window. The site column takes the width that is left, so
    // the table never scrolls sideways at 1280 px, and the cut site reads whole in its tooltip.
    auto w = open("stacks_all");
    w->resize(1280, 800);
    QTableView* table = eventTableOf(*w);
    for (QWidget* p = table->parentWidget(); p; p = p->parentWidget()) // bring the table's tab forward
        if (auto* tabs =
                qobject_cast<QTabWidget*>(p->parentWidget() ? p->parentWidget()->parentWidget() : nullptr))
            tabs->setCurrentWidget(p);
    QApplication::processEvents();
    QVERIFY(table->isVisible());
    QCOMPARE(table->horizontalScrollBar()->maximum(), 0);
    auto* model = table->model();
    const int site = model->columnCount() - 1;
    QVERIFY(table->horizontalHeader()->length() <= table->viewport()->width());
    QVERIFY2(table->columnWidth(site) >= 60,
             qPrintable(QString::number(table->columnWidth(site)))); // not squeezed out
    int cut = 0;
    for (int row = 0; row < std::min(model->rowCount(), 200); ++row) {
        const QString text = model->index(row, site).data().toString();
        QCOMPARE(model->index(row, site).data(Qt::ToolTipRole).toString(), text);
        cut += table->fontMetrics().horizontalAdvance(text) > table->columnWidth(site);
    }
    QVERIFY(cut > 0); // the sample has sites wider than the column: the case this guards
}

// A recording whose exit graph the recorder skipped (a 0.7-s run: less than a walk's share of its
// pause budget): the Retention tab says that, in the recorder's words, not "record with the agent".
void TestMainWindow::retentionTabSaysWhyThereIsNone() {
    auto capture = loadCaptureFile(vs::test::samplePath("mixed_sizes"), {});
    const std::string skipped = "recorder: retention graph (exit) skipped: the run is too short for one "
                                "(5 % of its 0.7 s is less than a walk's 0.05 s)";
    capture->meta.emplace_back("warning", skipped);
    QTemporaryDir dir;
    const QString path = writeFile(dir, "short.vscap", encodeVscap(*capture));
    QVERIFY(!path.isEmpty());
    for (const bool withWarning : {true, false}) {
        ui::MainWindow w;
        const QString open = withWarning ? path : QString::fromStdString(vs::test::samplePath("mixed_sizes"));
        w.setAnalysis(open, ui::CaptureLoader::openNow(open));
        w.showRetentionTab();
        auto* summary = retentionOf(w)->findChild<QLabel*>(QStringLiteral("retentionSummary"));
        QVERIFY(summary);
        const QString text = summary->text();
        QCOMPARE(text.contains("the recorder did not collect one"), withWarning);
        QCOMPARE(text.contains("the run is too short for one (5 % of its 0.7 s"), withWarning);
        QCOMPARE(text.contains("Record with the vramscope agent"), !withWarning);
    }
}

QTEST_MAIN(TestMainWindow)

// A capture the recorder made on the H200 with a retention graph at step 25 of leak_eval_no_grad:
// outputs kept in a local list, each holding its autograd graph.
// A CUDA program's stream-ordered pool, recorded by the CUPTI agent on the H200: the bytes the pool
// holds beyond its allocations are a segment of their own, named as such.
void TestMainWindow::blockMapNamesAPoolCache() {
    ui::MainWindow w;
    w.resize(1400, 900);
    w.show();
    const QString path = vs::test::samplesDir() + "/../cuda/pool.vscap";
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    w.showBlockMapTab();
    QApplication::processEvents();
    ui::BlockMapView* view = blockMapOf(w)->view();
    QString cache;
    for (int y = 2; y < view->viewport()->height() && cache.isEmpty(); y += 3)
        for (int x = 2; x < view->viewport()->width() && cache.isEmpty(); x += 3)
            if (const QString d = view->describe(view->hitTest({x, y})); d.contains("cache")) cache = d;
    QVERIFY2(cache.contains("memory pool #0's cache") && cache.contains("12.0 MiB"), qPrintable(cache));
}

// File > Capture Properties on a CUDA program recorded by the CUPTI agent: the program, the agent's
// settings and the modules its frames come from, with their build ids; closed when another loads.
void TestMainWindow::propertiesDescribeTheRecording() {
    ui::MainWindow w;
    const QString path = vs::test::samplesDir() + "/../cuda/vmm.vscap";
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    w.showProperties();
    auto* d = w.findChild<ui::CapturePropertiesDialog*>(); // the open one
    QVERIFY(d && d->isVisible());
    QStringList sections;
    for (int i = 0; i < d->tree()->topLevelItemCount(); ++i) sections << d->tree()->topLevelItem(i)->text(0);
    QCOMPARE(sections, (QStringList{"File", "Device 0", "Recorder", "Modules (native frames)",
                                    "What the memory is made of", "Warnings"}));
    const QString text = d->text();
    QVERIFY2(text.contains("recorder: vramscope-cupti") && text.contains("stacks: native") &&
                 text.contains("unwinder: libunwind") && text.contains("argv: ") && text.contains("vmm"),
             qPrintable(text));
    QVERIFY(text.contains("Final state in the file: yes") && text.contains("Replay matches it: exactly"));
    QVERIFY(text.contains("Name: NVIDIA H200") &&
            text.contains("Memory: 139.80 GiB")); // the agent's Device record
    QVERIFY(text.contains("address_space_reserved: 16777216 bytes"));
    QVERIFY(text.contains("2097152 bytes of physical memory")); // the warning
    QVERIFY2(text.contains("device 0: program or extension: peak "),
             qPrintable(text)); // a driver-level recording, named
    const QTreeWidgetItem* modules = d->tree()->topLevelItem(3);
    bool program = false; // the program itself, with its build id
    for (int i = 0; i < modules->childCount(); ++i)
        program |= modules->child(i)->text(0).endsWith("/vmm") &&
                   QRegularExpression("build id [0-9a-f]{40}$").match(modules->child(i)->text(1)).hasMatch();
    QVERIFY(program);
    const QString other = vs::test::samplesDir() + "/../cuda/leak.vscap";
    w.setAnalysis(other, ui::CaptureLoader::openNow(other));
    QTRY_VERIFY(!w.findChild<ui::CapturePropertiesDialog*>()); // it described the previous capture
}

void TestMainWindow::retentionTabNamesTheHolder() {
    ui::MainWindow w;
    const QString path = vs::test::samplesDir() + "/../recorded/leak_eval_no_grad.vscap";
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    // the diagnosis's "Retention tab" is a link to it (the tab can be scrolled out of sight)
    leaksOf(w)->waitForResult();
    auto* header = leaksOf(w)->findChild<QLabel*>(QStringLiteral("leakDiagnosis"));
    QVERIFY2(header && header->text().contains(QStringLiteral("<a href=\"#retention\">Retention tab</a>")),
             qPrintable(header ? header->text() : QString()));
    auto* tabs = qobject_cast<QTabWidget*>(retentionOf(w)->parentWidget()->parentWidget());
    QVERIFY(tabs && tabs->currentWidget() != retentionOf(w));
    emit header->linkActivated(QStringLiteral("#retention"));
    QCOMPARE(tabs->currentWidget(), retentionOf(w));
    w.showRetentionTab();
    ui::RetentionPanel* p = retentionOf(w);
    w.waitForBackgroundWork();    // the graphs are analysed off the GUI thread
    QCOMPARE(p->graphCount(), 2); // at step 25 and at exit
    QVERIFY(!p->result().groups.empty());
    // Opens on the graph with suspicious memory: the one taken while the list was alive.
    const auto& top = p->result().groups.front();
    QVERIFY(top.suspicious);
    QCOMPARE(top.verdict, RetentionVerdict::LocalVariable);
    QVERIFY2(p->pathText().contains("local 'outputs'"), qPrintable(p->pathText()));
    QVERIFY(p->pathText().contains(".grad_fn"));
    QVERIFY2(p->hintText().contains("autograd graphs"), qPrintable(p->hintText()));
    // The dominator tree: the frame, then the list retaining the bulk of the memory.
    QAbstractItemModel* tree = p->dominatorView()->model();
    const QModelIndex frame = tree->index(0, 0);
    QVERIFY2(frame.data().toString().contains("frame leak_eval_no_grad"),
             qPrintable(frame.data().toString()));
    const QModelIndex list = tree->index(0, 0, frame);
    QVERIFY(list.data().toString().startsWith("list"));
    QCOMPARE(tree->index(0, 1, frame).data().toString(),
             QString::fromStdString(
                 humanBytes(int64_t(p->result().retained[list.data(Qt::UserRole + 1).toUInt()]))));
    const uint32_t listNode = list.data(Qt::UserRole + 1).toUInt();
    QVERIFY(p->result().retained[listNode] > 400ull << 20); // 25 outputs of 20 MiB each with their graphs
    // Ignoring the list leaves its blocks unexplained by any root: they fall to the cycle root.
    p->ignoreNode(listNode);
    w.waitForBackgroundWork();
    QVERIFY(!p->pathText().contains("local 'outputs'"));
    p->clearIgnored();
    w.waitForBackgroundWork();
    QVERIFY(p->pathText().contains("local 'outputs'"));
    // Choosing a group marks its blocks in the block map at the graph's moment, where they are alive.
    p->selectGroup(1);
    p->selectGroup(0);
    QCOMPARE(blockMapOf(w)->view()->markedAlive(), p->result().groups.front().blocks.size());
    // Suspicious-only keeps the leak and hides allocator-internal blocks.
    const int all = p->groupsView()->model()->rowCount();
    QCOMPARE(size_t(all), p->result().groups.size());
    p->findChild<QCheckBox*>()->setChecked(true);
    const int suspicious = p->groupsView()->model()->rowCount();
    QVERIFY(suspicious < all);
    QCOMPARE(size_t(suspicious), size_t(std::count_if(p->result().groups.begin(), p->result().groups.end(),
                                                      [](const RetentionGroup& g) { return g.suspicious; })));
}

// samples/newest/newest_hand_overflow.pickle: pinned host memory in the device picker, the label put
// on a block after the fact in the timeline's legend, the ghost block hatched and named in the map.
void TestMainWindow::newestSnapshotFieldsOnScreen() {
    const auto window = openSample("/../newest/newest_hand_overflow.pickle");
    MainWindow& w = *window;
    auto* box = w.findChild<QComboBox*>("deviceBox");
    QVERIFY(box && box->count() == 2);
    QVERIFY(box->itemText(0).startsWith("device 0"));
    QVERIFY(box->itemText(1).startsWith("pinned host memory"));
    QCOMPARE(w.session()->device(), size_t(0)); // the GPU first, though the host lane has more events
    const QString notes = "block labels added after the fact (_annotate_memory)";
    QVERIFY(!timelineOf(w)->legendNames().contains(notes)); // an overlay, off at first
    timelineOf(w)->setOverlayVisible(TimelinePlot::Overlay::Annotations, true);
    QVERIFY(timelineOf(w)->legendNames().contains(notes));
    w.showBlockMapTab();
    ui::BlockMapView* view = blockMapOf(w)->view();
    view->setMoment(0); // before the first entry: the ghost is alive
    QApplication::processEvents();
    bool legend = false;
    for (const auto& e : view->legend()) legend |= e.name.startsWith("hatched: ghost");
    QVERIFY(legend);
    const uint64_t ghost = timelineOf(w)->analysis()->ghosts(0).blocks.at(0).address;
    QString tip;
    for (int y = 2; y < view->viewport()->height() && tip.isEmpty(); y += 3)
        for (int x = 2; x < view->viewport()->width() && tip.isEmpty(); x += 3) {
            const auto h = view->hitTest({x, y});
            if (h.segment >= 0 && h.block >= 0 &&
                view->segments()[size_t(h.segment)].blocks[size_t(h.block)].address == ghost)
                tip = view->describe(h);
        }
    QVERIFY2(tip.contains("<b>ghost</b>: the trace sees it only being freed"), qPrintable(tip));
}

#include "tst_main_window.moc"
