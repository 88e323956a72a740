// The GUI, offscreen: plotted series against PyTorch's truth, mouse interactions on the timeline,
// the event list and stack pane in sync, and headless --screenshot.
#include "BlockMapPanel.h"
#include "CapturePropertiesDialog.h"
#include "EventTableModel.h"
#include "FlameGraph.h"
#include "LeaksPanel.h"
#include "MainWindow.h"
#include "MemoryMapView.h"
#include "RetentionPanel.h"
#include "Sparkline.h"
#include "StackPane.h"
#include "TestData.h"
#include "TimelinePlot.h"

#include <QCheckBox>
#include <QImage>
#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

using namespace vs;
using vs::ui::MainWindow;
using vs::ui::TimelinePlot;

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void retentionTabNamesTheHolder();
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
    void fragmentationOnTheTimeline();
    void memoryMapClickMovesTheBlockMap();
    void blockMapExpandableRangesGrowAndZoom();
    void screenshotWritesAskedSize();

  private:
    std::unique_ptr<MainWindow> open(const QString& name);
    static void mouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons,
                      Qt::KeyboardModifiers mods = {});
};

namespace {
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
} // namespace

void TestMainWindow::initTestCase() {
    QCoreApplication::setOrganizationName("vramscope-tests");
    QSettings().clear();
}

std::unique_ptr<MainWindow> TestMainWindow::open(const QString& name) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis(name, ui::CaptureLoader::openNow(QString::fromStdString(vs::test::samplePath(name))));
    QApplication::processEvents();
    w->timeline()->replot();
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
        TimelinePlot* plot = w->timeline();
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
    TimelinePlot* plot = w->timeline();
    const QCPRange before = plot->visibleRange();
    QCPAxisRect* rect = plot->axisRect(0);
    const QPoint at(rect->left() + rect->width() / 4, rect->top() + rect->height() / 2);
    const double under = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    const QCPRange after = plot->visibleRange();
    QVERIFY(after.size() < before.size() * 0.95);
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
    TimelinePlot* plot = w->timeline();
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
    TimelinePlot* plot = w->timeline();
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
    const auto& trace = w->timeline()->analysis()->trace(0);
    const auto us = plot->originUs() + static_cast<int64_t>(std::floor(to * 1e6));
    const auto n = std::upper_bound(trace.timeUs.begin(), trace.timeUs.end(), us) - trace.timeUs.begin();
    QVERIFY(n > 0);
    QCOMPARE(plot->valuesAt(0, to).allocated, w->timeline()->analysis()->replay(0).allocated[size_t(n - 1)]);
}

void TestMainWindow::clickSelectsEventAndStack() {
    auto w = open("stacks_all");
    TimelinePlot* plot = w->timeline();
    QCPAxisRect* rect = plot->axisRect(0);
    const QPoint at(rect->left() + rect->width() / 2, rect->top() + 40);
    mouse(plot, QEvent::MouseButtonPress, at, Qt::LeftButton);
    mouse(plot, QEvent::MouseButtonRelease, at, Qt::NoButton);
    const int row = w->eventTable()->currentIndex().row();
    QVERIFY(row >= 0);
    const double t = rect->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
    auto* model = static_cast<ui::EventTableModel*>(w->eventTable()->model());
    QVERIFY(model->timeOfRow(row) <= t);
    if (row + 1 < model->rowCount()) QVERIFY(model->timeOfRow(row + 1) > t);
    // stacks=all: internal frames are folded until the toggle is on
    w->eventTable()->selectRow(0);
    const int folded = w->stackPane()->visibleFrameCount();
    w->stackPane()->setShowInternal(true);
    const int all = w->stackPane()->visibleFrameCount();
    QVERIFY2(all > folded, qPrintable(QString("%1 vs %2").arg(all).arg(folded)));
    QVERIFY(w->stackPane()->stackText().count('\n') >= all - 1);
}

void TestMainWindow::badFileShowsNoCrashAndKeepsWindow() {
    auto w = open("oom");
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.pickle");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x80\x04garbage");
    f.close();
    QSignalSpy failed(w->loader(), &ui::CaptureLoader::failed);
    QTimer::singleShot(0, [] {}); // the error dialog is modal: close it as soon as it shows
    QTimer closer;
    QObject::connect(&closer, &QTimer::timeout, [] {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) box->accept();
    });
    closer.start(20);
    w->openFile(bad);
    QVERIFY(failed.wait(5000));
    QVERIFY(failed.at(0).at(1).toString().contains("at byte"));
    QVERIFY(w->timeline()->analysis() != nullptr); // the previous capture is still shown
    QCOMPARE(w->timeline()->seriesGraph(0, TimelinePlot::Series::Allocated, true)->name(),
             QString("allocated"));
}

void TestMainWindow::devicesGetLinkedLanes() {
    MainWindow w;
    w.resize(1200, 900);
    w.show();
    const QString path = QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/../synthetic/two_devices.pickle.zst");
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    QApplication::processEvents();
    TimelinePlot* plot = w.timeline();
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
    ui::LeaksPanel* panel = w->leaksPanel();
    panel->waitForResult();
    QCOMPARE(panel->report().kind, LeakKind::Leak);
    QVERIFY(panel->groupRows() > 0);
    // the top group's allocations are marked on the timeline, its live bytes drawn as a sparkline
    const SurvivorGroup& top = panel->report().groups.front();
    QVERIFY(panel->sparkline()->pointCount() >= top.count);
    QCPGraph* marks = nullptr;
    for (int i = 0; i < w->timeline()->graphCount(); ++i)
        if (w->timeline()->graph(i)->name() == "selected group") marks = w->timeline()->graph(i);
    QVERIFY(marks);
    QCOMPARE(marks->data()->size(), int(top.count));
    // search keeps the path to train_and_keep in the top-down tree
    panel->setSearch("train_and_keep");
    QVERIFY(panel->topDownView()->model()->rowCount() > 0);
    panel->setSearch("no_such_function_anywhere");
    QCOMPARE(panel->topDownView()->model()->rowCount(), 0);
    panel->setSearch(QString());
    // the flame graph zooms into a clicked frame and back out with Escape
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
    // a selected range re-analyses what survives it
    QSignalSpy ready(panel, &ui::LeaksPanel::reportReady);
    w->timeline()->setSelection(QCPRange(0.0, 0.2));
    QVERIFY(ready.wait(5000));
    QVERIFY(!panel->report().autoWindow);
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
    const QImage img = w->timeline()->toPixmap(900, 400).toImage();
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
    ui::BlockMapView* view = w->blockMap()->view();
    const auto& t = w->timeline()->analysis()->trace(0);
    QCOMPARE(view->moment(), t.eventCount()); // the end of the capture at first
    QCOMPARE(view->segments().size(), t.finalSegments.size());
    // find an allocated block on screen, check the tooltip text, click it: its alloc event is selected
    const auto found = findAllocatedBlock(view);
    QVERIFY(found.has_value());
    const auto [at, b] = *found;
    QVERIFY(view->describe(view->hitTest(at)).contains("active_allocated"));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(w->eventTable()->currentIndex().row(), int(b.allocEvent));
    QCOMPARE(t.action[b.allocEvent], Action::Alloc);
    QCOMPARE(view->moment(), t.eventCount()); // the map stays at the moment the user looks at
    // selecting an event moves the block map to that moment: the state equals the replay's
    w->eventTable()->selectRow(10);
    QCOMPARE(view->moment(), size_t(11));
    const auto want =
        Replay::stateAfter(t, w->timeline()->analysis()->capture().streams,
                           w->timeline()->analysis()->replay(0), w->timeline()->analysis()->rules(), 11);
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
    for (int i = 0; i < w->timeline()->graphCount(); ++i) {
        if (w->timeline()->graph(i)->name() == "largest free block") largest = w->timeline()->graph(i);
        if (w->timeline()->graph(i)->name() == "would need a new segment") marks = w->timeline()->graph(i);
    }
    QVERIFY(largest && marks);
    QVERIFY(largest->data()->size() > 100);
    // never above the reserved memory, and the peak of the largest free block is real free space
    const auto& r = w->timeline()->analysis()->replay(0);
    double top = 0;
    for (auto it = largest->data()->constBegin(); it != largest->data()->constEnd(); ++it)
        top = std::max(top, it->value);
    QVERIFY(top > 0);
    QVERIFY(top <= double(r.peak.reserved));
}

void TestMainWindow::memoryMapClickMovesTheBlockMap() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    ui::MemoryMapView* map = w->memoryMap();
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
    QCOMPARE(w->blockMap()->view()->moment(), size_t(g.columnEvents[size_t(c)]));
}

void TestMainWindow::blockMapExpandableRangesGrowAndZoom() {
    auto w = open("expandable");
    w->showBlockMapTab();
    QApplication::processEvents();
    ui::BlockMapView* view = w->blockMap()->view();
    const auto& t = w->timeline()->analysis()->trace(0);
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
    for (int i = 0; i < w->timeline()->itemCount(); ++i)
        if (auto* r = qobject_cast<QCPItemRect*>(w->timeline()->item(i)); r && r->visible()) ++visibleRects;
    QVERIFY(visibleRects >= 1); // the lifetime span
}

void TestMainWindow::screenshotWritesAskedSize() {
    QTemporaryDir dir;
    for (const QString view : {"timeline", "blockmap", "leaks", "window"}) {
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
    ui::BlockMapView* view = w.blockMap()->view();
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
    ui::CapturePropertiesDialog* d = w.properties();
    QVERIFY(d && d->isVisible());
    QStringList sections;
    for (int i = 0; i < d->tree()->topLevelItemCount(); ++i) sections << d->tree()->topLevelItem(i)->text(0);
    QCOMPARE(sections, (QStringList{"File", "Device 0", "Recorder", "Modules (native frames)", "Warnings"}));
    const QString text = d->text();
    QVERIFY2(text.contains("recorder: vramscope-cupti") && text.contains("stacks: native") &&
                 text.contains("unwinder: libunwind") && text.contains("argv: ") && text.contains("vmm"),
             qPrintable(text));
    QVERIFY(text.contains("Final state in the file: yes") && text.contains("Replay matches it: exactly"));
    QVERIFY(text.contains("Name: NVIDIA H200") &&
            text.contains("Memory: 139.80 GiB")); // the agent's Device record
    QVERIFY(text.contains("address_space_reserved: 16777216 bytes"));
    QVERIFY(text.contains("2097152 bytes of physical memory")); // the warning
    const QTreeWidgetItem* modules = d->tree()->topLevelItem(3);
    bool program = false; // the program itself, with its build id
    for (int i = 0; i < modules->childCount(); ++i)
        program |= modules->child(i)->text(0).endsWith("/vmm") &&
                   QRegularExpression("build id [0-9a-f]{40}$").match(modules->child(i)->text(1)).hasMatch();
    QVERIFY(program);
    const QString other = vs::test::samplesDir() + "/../cuda/leak.vscap";
    w.setAnalysis(other, ui::CaptureLoader::openNow(other));
    QTRY_VERIFY(!w.properties()); // it described the previous capture
}

void TestMainWindow::retentionTabNamesTheHolder() {
    ui::MainWindow w;
    const QString path = vs::test::samplesDir() + "/../recorded/leak_eval_no_grad.vscap";
    w.setAnalysis(path, ui::CaptureLoader::openNow(path));
    w.showRetentionTab();
    ui::RetentionPanel* p = w.retentionPanel();
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
    QTreeWidgetItem* frame = p->dominatorTree()->topLevelItem(0);
    QVERIFY2(frame->text(0).contains("frame leak_eval_no_grad"), qPrintable(frame->text(0)));
    QTreeWidgetItem* list = frame->child(0);
    QVERIFY(list->text(0).startsWith("list"));
    const uint32_t listNode = list->data(0, Qt::UserRole + 1).toUInt();
    QVERIFY(p->result().retained[listNode] > 400ull << 20); // 25 outputs of 20 MiB each with their graphs
    // Ignoring the list leaves its blocks unexplained by any root: they fall to the cycle root.
    p->ignoreNode(listNode);
    QVERIFY(!p->pathText().contains("local 'outputs'"));
    p->clearIgnored();
    QVERIFY(p->pathText().contains("local 'outputs'"));
    // Suspicious-only keeps the leak and hides allocator-internal blocks.
    const int all = p->groupsTree()->topLevelItemCount();
    p->findChild<QCheckBox*>()->setChecked(true);
    QVERIFY(p->groupsTree()->topLevelItemCount() < all);
}

#include "tst_main_window.moc"
