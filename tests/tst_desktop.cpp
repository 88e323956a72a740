// The desktop conventions of the GUI, offscreen: every shortcut unique and listed, the welcome page
// while nothing is open, timeline overlays off until asked for with a legend that names only what is
// drawn, icons for the toolbar, and the bug-report exports.
#include "SyntheticLoop.h"
#include "TestData.h"
#include "WindowParts.h"
#include "analysis/CaptureFacts.h"
#include "analysis/stacks/FrameFilter.h"
#include "common/Icons.h"
#include "common/Theme.h"
#include "models/EventTableModel.h"
#include "session/Session.h"
#include "timeline/ColumnFill.h"
#include "timeline/TimelinePlot.h"
#include "util/DisplayText.h"
#include "util/Format.h"
#include "views/dialogs/CapturePropertiesDialog.h"
#include "views/dialogs/HelpDialogs.h"
#include "views/dialogs/ShortcutsDialog.h"
#include "views/dialogs/WelcomePage.h"
#include "views/panels/BlockMapPanel.h"
#include "views/panels/EventFindBar.h"
#include "views/panels/EventTableView.h"
#include "views/panels/LeaksPanel.h"
#include "views/panels/StackPane.h"
#include "views/timeline/AllocationBandsView.h"
#include "views/timeline/MemoryMapView.h"
#include "window/Exporter.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QDialog>
#include <QJsonArray>
#include <QListWidget>
#include <QMenuBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QtTest>

using namespace vs;
using namespace vs::test;
using vs::ui::MainWindow;
using vs::ui::TimelinePlot;

class TestDesktop : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void everyShortcutIsUniqueAndListed();
    void welcomePageWhileEmpty();
    void overlaysOffByDefaultAndLegendFollows();
    void columnFillHoldsTheValueABurstLeaves();
    void toolbarActionsHaveIcons();
    void aboutNamesVersionsAndLicences();
    void exportTitleNamesFileDeviceRangeAndKind();
    void exportedImageLeavesOutTheCursor();
    void markdownHoldsDiagnosisSitesAndTruth();
    void memoryMapSharesTheTimelinesTimeAxis();
    void allocationBandsHoverAndClick();
    void findAndGoToTimeInTheEventList();
    void blockMapLegendAndPlaySpeed();
    void darkThemeRecoloursViewsAndIcons();
    void openInEditorSaysWhyItFailed();
    void annotationTicksStayAtTheTopWithFragmentation();
    void longLabelsAreShownCapped();

  private:
    static std::unique_ptr<MainWindow> open(const QString& name);
};

void TestDesktop::initTestCase() {
    QCoreApplication::setOrganizationName("vramscope-tests-desktop");
    QSettings().clear();
}

std::unique_ptr<MainWindow> TestDesktop::open(const QString& name) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis(name, ui::CaptureLoader::openNow(QString::fromStdString(vs::test::samplePath(name))));
    QApplication::processEvents();
    return w;
}

void TestDesktop::everyShortcutIsUniqueAndListed() {
    // recent files: File › Open Recent has rows with keys, between File's own
    QSettings().setValue("recentFiles",
                         QStringList{QString::fromStdString(vs::test::samplePath("leak_list")),
                                     QString::fromStdString(vs::test::samplePath("clean_loop"))});
    auto w = open("oom");
    QHash<QString, QString> owner; // key sequence -> the action that has it
    int withKeys = 0;
    for (QAction* a : w->findChildren<QAction*>()) {
        for (const QKeySequence& k : a->shortcuts()) {
            const QString keys = k.toString(QKeySequence::PortableText);
            QVERIFY2(!owner.contains(keys), qPrintable(QStringLiteral("%1 is bound to both \"%2\" and \"%3\"")
                                                           .arg(keys, owner.value(keys), a->text())));
            owner.insert(keys, a->text());
            ++withKeys;
        }
    }
    QVERIFY(withKeys >= 25);
    QCOMPARE(owner.value("Ctrl+I"), QStringLiteral("Capture &Properties\u2026"));
    QCOMPARE(owner.value("F1"), QStringLiteral("vramscope &Help"));
    // Help > Keyboard Shortcuts lists every menu action that has keys, with those keys
    const auto rows = ui::ShortcutsDialog::rows(w->menuBar());
    QSet<QString> listed;
    for (const auto& r : rows)
        listed.insert(QKeySequence(r.keys, QKeySequence::NativeText).toString(QKeySequence::PortableText));
    for (auto it = owner.cbegin(); it != owner.cend(); ++it)
        QVERIFY2(listed.contains(it.key()), qPrintable(it.key() + " (" + it.value() + ") is not listed"));
    QCOMPARE(qsizetype(rows.size()), qsizetype(withKeys));
    QStringList headings; // one heading per menu (File came twice around File › Open Recent)
    for (const auto& r : rows)
        if (headings.isEmpty() || headings.back() != r.menu) headings.push_back(r.menu);
    QCOMPARE(headings.size(), qsizetype(QSet<QString>(headings.begin(), headings.end()).size()));
    if (qEnvironmentVariableIsSet("VRAMSCOPE_SAVE_DIALOGS")) { // to look at them
        const QString dir = qEnvironmentVariable("VRAMSCOPE_SAVE_DIALOGS");
        ui::ShortcutsDialog shortcuts(w->menuBar(), w.get());
        shortcuts.show();
        QApplication::processEvents();
        QVERIFY(shortcuts.grab().save(dir + "/shortcuts.png"));
        ui::showHelp(w.get());
        QApplication::processEvents();
        QDialog* help = nullptr;
        for (auto* d : w->findChildren<QDialog*>(QString(), Qt::FindDirectChildrenOnly))
            if (d->windowTitle() == "vramscope Help") help = d;
        QVERIFY(help && help->grab().save(dir + "/help.png"));
    }
}

void TestDesktop::welcomePageWhileEmpty() {
    QSettings().setValue("recentFiles",
                         QStringList{QString::fromStdString(vs::test::samplePath("leak_list"))});
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QApplication::processEvents();
    QVERIFY(w.showingWelcome());
    QVERIFY(welcomeOf(w)->isVisible());
    QVERIFY(!timelineOf(w)->isVisible());
    // the recent file and the bundled samples are offered
    QCOMPARE(welcomeOf(w)->recentList()->count(), 1);
    QCOMPARE(welcomeOf(w)->recentList()->item(0)->text(),
             QFileInfo(QString::fromStdString(vs::test::samplePath("leak_list"))).fileName());
    const QStringList samples = ui::WelcomePage::sampleFiles();
    QCOMPARE(welcomeOf(w)->sampleList()->count(), samples.size());
    QVERIFY(samples.size() >= 8);
    // clicking a sample opens it (in the background) and the views replace the welcome page
    QListWidgetItem* leak = welcomeOf(w)->sampleList()->findItems("leak_list", Qt::MatchStartsWith).value(0);
    QVERIFY(leak);
    emit welcomeOf(w)->sampleList()->itemActivated(leak);
    QTRY_VERIFY_WITH_TIMEOUT(w.session()->isOpen(), 20000);
    QVERIFY(!w.showingWelcome());
    QVERIFY(timelineOf(w)->isVisible());
    QCOMPARE(QFileInfo(w.session()->path()).fileName(),
             QFileInfo(leak->data(Qt::UserRole).toString()).fileName());
    QSettings().remove("recentFiles");
}

void TestDesktop::overlaysOffByDefaultAndLegendFollows() {
    auto w = open("oom");
    w->waitForBackgroundWork();
    TimelinePlot* plot = timelineOf(*w);
    for (auto o : {TimelinePlot::Overlay::Active, TimelinePlot::Overlay::Fragmentation,
                   TimelinePlot::Overlay::Annotations})
        QVERIFY(!plot->overlayVisible(o));
    // allocated and reserved, the OOM this capture has, the ticks of the Leaks group a cold open
    // selects; nothing of the overlays
    const QString group = "allocations of the selected Leaks group";
    QCOMPARE(plot->legendNames(), (QStringList{"allocated", "reserved", "out of memory (OOM)", group}));
    plot->setMarkedTimes(0, {}); // no group: no entry
    QCOMPARE(plot->legendNames(), (QStringList{"allocated", "reserved", "out of memory (OOM)"}));
    auto graphNamed = [&](const QString& name) -> QCPGraph* {
        for (int i = 0; i < plot->graphCount(); ++i)
            if (plot->graph(i)->name() == name) return plot->graph(i);
        return nullptr;
    };
    QCPGraph* largest = graphNamed("largest free block");
    QVERIFY(largest);
    QVERIFY(!largest->visible());
    QVERIFY(!plot->axisRect(0)->axis(QCPAxis::atRight)->visible()); // no unexplained right axis
    QVERIFY(!plot->seriesGraph(0, TimelinePlot::Series::Active, true)->visible());
    // View > Show Fragmentation: drawn, with its three entries; off again: gone from the legend
    QAction* frag = nullptr;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text() == "Show F&ragmentation") frag = a;
    QVERIFY(frag && frag->isCheckable() && !frag->isChecked());
    frag->setChecked(true);
    QVERIFY(largest->visible());
    QCOMPARE(plot->legendNames(),
             (QStringList{"allocated", "reserved", "largest free block", "free fragments",
                          "would need a new segment", "out of memory (OOM)"}));
    frag->setChecked(false);
    QCOMPARE(plot->legendNames(), (QStringList{"allocated", "reserved", "out of memory (OOM)"}));
    // remembered: a new window starts with the user's choice
    frag->setChecked(true);
    auto again = open("oom");
    QVERIFY(timelineOf(*again)->overlayVisible(TimelinePlot::Overlay::Fragmentation));
    frag->setChecked(false);
    // a clean capture has no OOM entry
    auto clean = open("clean_loop");
    timelineOf(*clean)->setMarkedTimes(0, {});
    QStringList want{"allocated", "reserved"};
    if (timelineOf(*clean)->fold().folded()) // its start-up pause is drawn as a break, and named
        want << QString::fromUtf8("idle, folded (View \u2192 Fold Idle Gaps)");
    QCOMPARE(timelineOf(*clean)->legendNames(), want);
}

void TestDesktop::toolbarActionsHaveIcons() {
    MainWindow w;
    QToolBar* bar = toolBarOf(w);
    QVERIFY(bar);
    int actions = 0;
    for (QAction* a : bar->actions()) {
        if (a->isSeparator()) continue;
        ++actions;
        QVERIFY2(!a->icon().isNull(), qPrintable(a->text()));
        // drawn in the palette's text colour: some pixel of the 24 px icon is that colour
        const QImage img = a->icon().pixmap(24, 24).toImage();
        const QColor text = w.palette().color(QPalette::WindowText);
        bool found = false;
        for (int y = 0; y < img.height() && !found; ++y)
            for (int x = 0; x < img.width() && !found; ++x) {
                const QColor c = img.pixelColor(x, y);
                found = c.alpha() == 255 && std::abs(c.red() - text.red()) < 8 &&
                        std::abs(c.green() - text.green()) < 8;
            }
        QVERIFY2(found, qPrintable(a->text()));
    }
    QCOMPARE(actions, 13);
    QVERIFY(!w.windowIcon().isNull());
}

void TestDesktop::aboutNamesVersionsAndLicences() {
    QApplication::setApplicationVersion("9.8.7");
    const QString about = ui::aboutText();
    QVERIFY(about.contains("vramscope 9.8.7"));
    QVERIFY(about.contains(QString::fromLatin1(qVersion())));
    for (const char* licence : {"LGPL-3.0", "GPL-3.0", "BSD-3-Clause", "zlib"})
        QVERIFY(about.contains(licence));
}

void TestDesktop::exportTitleNamesFileDeviceRangeAndKind() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    leaksOf(*w)->waitForResult();
    QApplication::processEvents();
    timelineOf(*w)->setVisibleRange(QCPRange(0.25, 0.75));
    const QString title = w->exportTitle();
    QVERIFY2(title.startsWith("leak_list.pickle.zst \u00b7 device 0 \u00b7 0.250\u20130.750 s \u00b7 "),
             qPrintable(title));
    // the diagnosis the Leaks tab shows, which for this capture is PyTorch's truth: a leak
    QCOMPARE(title.section(" \u00b7 ", 3),
             QString::fromStdString(std::string(leakKindName(leaksOf(*w)->report().kind))));
    QCOMPARE(title.section(" \u00b7 ", 3), vs::test::sampleTruth("leak_list")["kind"].toString());
}

void TestDesktop::exportedImageLeavesOutTheCursor() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    TimelinePlot* plot = timelineOf(*w);
    plot->replot();
    QTemporaryDir dir;
    const QString plain = dir.filePath("plain.png"), withCursor = dir.filePath("cursor.png");
    {
        TimelinePlot::ExportScope clean(plot);
        QVERIFY(ui::exportPlot(plot, plain, QSize(900, 400), w->exportTitle()).isEmpty());
    }
    plot->setCursorTime(plot->visibleRange().center()); // where the pointer would be
    plot->replot();
    {
        TimelinePlot::ExportScope clean(plot);
        QVERIFY(ui::exportPlot(plot, withCursor, QSize(900, 400), w->exportTitle()).isEmpty());
    }
    const QImage a(plain), b(withCursor);
    QCOMPARE(a.size(), QSize(900, 400));
    QCOMPARE(a, b);
    // and the scope is what hides it: without it the cursor line is drawn
    const QString raw = dir.filePath("raw.png");
    QVERIFY(ui::exportPlot(plot, raw, QSize(900, 400), w->exportTitle()).isEmpty());
    QVERIFY(QImage(raw) != a);
    // the title line is drawn: the top rows hold text-coloured pixels
    const QColor text = plot->palette().color(QPalette::Text);
    int inked = 0;
    for (int y = 0; y < ui::exportTitleHeight(plot, "x"); ++y)
        for (int x = 0; x < a.width(); ++x) inked += a.pixelColor(x, y) == text;
    QVERIFY(inked > 50);
}

void TestDesktop::markdownHoldsDiagnosisSitesAndTruth() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    leaksOf(*w)->waitForResult();
    QApplication::processEvents();
    const QJsonObject truth = vs::test::sampleTruth("leak_list");
    const QString md = w->summaryMarkdown("leak_list-report.png");
    if (qEnvironmentVariableIsSet("VRAMSCOPE_SAVE_REPORT")) { // to look at it
        QFile out(qEnvironmentVariable("VRAMSCOPE_SAVE_REPORT"));
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(md.toUtf8()) > 0);
    }
    const LeakReport& report = leaksOf(*w)->report();
    // the diagnosis: the kind PyTorch's truth names, with the report's own sentence and next step
    QVERIFY2(md.contains("**" + truth["kind"].toString() + "**"), qPrintable(md));
    QVERIFY(md.contains(QString::fromStdString(report.summary)));
    QVERIFY(md.contains(QString::fromStdString(report.nextStep)));
    // the top site is a line of the truth's leak sites, with its whole path, and the group's bytes
    const QRegularExpression site("\\| 1 \\| ([^|]+) \\| (\\d+) \\| [a-z]+ \\| `([^`]+):(\\d+)` in `");
    const auto m = site.match(md);
    QVERIFY2(m.hasMatch(), qPrintable(md));
    QCOMPARE(m.captured(3), truth["file"].toString());
    QVERIFY(truth["leak_site_lines"].toArray().contains(m.captured(4).toInt()));
    QCOMPARE(m.captured(1).trimmed(),
             QString::fromStdString(humanBytes(int64_t(report.groups.front().bytes))));
    QCOMPARE(m.captured(2).toUInt(), report.groups.front().count);
    // PyTorch's own peak and final allocated, the torch version note, the image
    QVERIFY(md.contains(QString::fromStdString(humanBytes(truth["max_memory_allocated"].toInteger()))));
    QVERIFY(md.contains(QString::fromStdString(humanBytes(truth["final_allocated"].toInteger()))));
    QVERIFY(md.contains("- torch: "));
    QVERIFY(md.contains("`PYTORCH_CUDA_ALLOC_CONF`: unset (defaults)"));
    QVERIFY(md.contains("](leak_list-report.png)"));
}

void TestDesktop::memoryMapSharesTheTimelinesTimeAxis() {
    auto w = open("leak_list");
    w->waitForBackgroundWork();
    ui::MemoryMapView* map = memoryMapOf(*w);
    map->resize(900, 300);
    auto sameRange = [&] {
        const QCPRange r = timelineOf(*w)->visibleRange();
        return qFuzzyCompare(map->timeRange().first + 1, r.lower + 1) &&
               qFuzzyCompare(map->timeRange().second + 1, r.upper + 1);
    };
    QVERIFY(sameRange());
    timelineOf(*w)->setVisibleRange(QCPRange(1.0, 3.0));
    QVERIFY(sameRange());
    // a pixel shows the state at its time: the last column taken at or before that moment
    const OccupancyGrid& g = map->grid();
    const QRect plot = map->plotRect();
    for (int x = plot.left(); x < plot.right(); x += 37) {
        const auto [c, row] = map->cellAt({x, plot.center().y()});
        QVERIFY(c >= 0 && row >= 0);
        const double t = map->timeAtX(x);
        QVERIFY(t >= 1.0 && t <= 3.0);
        auto columnSeconds = [&](int col) {
            return g.columnEvents[size_t(col)] ? w->session()->secondsAt(0, g.columnEvents[size_t(col)] - 1)
                                               : 0.0;
        };
        QVERIFY(columnSeconds(c) <= t);
        if (c + 1 < g.columns) QVERIFY(columnSeconds(c + 1) > t);
    }
}

// Allocation bands: the point in the middle of a drawn band names that allocation, and a click
// selects its alloc event in the session; the time axis is the timeline's.
void TestDesktop::allocationBandsHoverAndClick() {
    auto w = open("leak_list");
    w->showAllocationBandsTab();
    QApplication::processEvents();
    w->waitForBackgroundWork();
    ui::AllocationBandsView* v = bandsOf(*w);
    QVERIFY(v->layout().bands);
    timelineOf(*w)->setVisibleRange(QCPRange(0.0, 6.5));
    QCOMPARE(v->timeRange().first, 0.0);
    v->grab(); // a paint sets the byte scale
    const QRect plot = v->plotRect();
    const auto [from, to] = v->timeRange();
    const auto& times = w->analysis()->trace(0).timeUs;
    const AllocationBands& bands = *v->layout().bands;
    size_t checked = 0;
    for (size_t i = 0; i < bands.bands().size(); ++i) {
        const AllocationBand& b = bands.bands()[i];
        if (double(b.bytes) / v->bytesPerPixel() < 3) continue; // a few pixels tall at least
        const double start = w->session()->secondsAt(0, b.alloc);
        const double end = b.free == kNoEvent ? to : w->session()->secondsAt(0, b.free);
        const int x = plot.left() + int(((start + end) / 2 - from) / (to - from) * plot.width());
        const double t = from + (x - plot.left() + 0.5) / plot.width() * (to - from);
        const auto after = std::upper_bound(times.begin(), times.end(),
                                            int64_t(std::floor(t * 1e6)) + w->session()->originUs());
        const auto event = uint32_t(after - times.begin() - 1);
        if (!b.aliveAfter(event)) continue;
        const double middle = double(bands.offsetAfter(b, event)) + double(b.bytes) / 2;
        const QPoint p(x, plot.bottom() + 1 - int(middle / v->bytesPerPixel()));
        QCOMPARE(v->bandAt(p), std::optional<size_t>(i));
        QVERIFY(v->describe(i).contains(
            QString::fromStdString(hexAddress(w->analysis()->trace(0).addr[b.alloc]))));
        QTest::mouseClick(v, Qt::LeftButton, {}, p);
        QCOMPARE(w->session()->selectedEvent(), std::optional<size_t>(b.alloc));
        ++checked;
    }
    QVERIFY(checked >= 3);
}

void TestDesktop::findAndGoToTimeInTheEventList() {
    auto w = open("leak_list");
    const DeviceTrace& t = w->session()->analysis()->trace(0);
    const Capture& c = w->session()->analysis()->capture();
    ui::EventFindBar* bar = findBarOf(*w);
    QVERIFY(!bar->isVisible());
    // the leak's site, by function name: every match is an event whose innermost user frame is it
    const int first = bar->find("train_and_keep", true);
    QVERIFY(first >= 0);
    QCOMPARE(eventTableOf(*w)->currentIndex().row(), first);
    auto siteName = [&](int e) {
        const StackId s = t.stack[size_t(e)];
        const uint32_t at = firstUserFrame(c, s);
        return at == kNoFrame ? std::string()
                              : std::string(c.strings.text(c.frames[c.stacks.frames(s)[at]].name));
    };
    QCOMPARE(siteName(first), std::string("train_and_keep"));
    int expected = -1; // the same match found by a plain scan of the trace
    for (size_t e = 0; e < t.eventCount() && expected < 0; ++e)
        if (siteName(int(e)) == "train_and_keep") expected = int(e);
    QCOMPARE(first, expected);
    const int second = bar->find("train_and_keep", true);
    QVERIFY(second > first);
    QCOMPARE(bar->find("train_and_keep", false), first);
    // an exact address, an event number, an action, nothing
    const QString address = QStringLiteral("0x%1").arg(t.addr[size_t(second)], 0, 16);
    eventTableOf(*w)->selectRow(0);
    QVERIFY(t.addr[size_t(bar->find(address, true))] == t.addr[size_t(second)]);
    QCOMPARE(bar->find("#700", true), 700);
    const int segment = bar->find("segment_alloc", true);
    QCOMPARE(t.action[size_t(segment)], Action::SegmentAlloc);
    QCOMPARE(bar->find("no_such_function_anywhere", true), -1);
    // Go to Time: the last event at or before the moment
    const double at = double(t.timeUs[400] - timelineOf(*w)->originUs()) / 1e6 + 1e-7;
    w->goToTime(at);
    const int row = eventTableOf(*w)->currentIndex().row();
    QVERIFY(double(t.timeUs[size_t(row)] - timelineOf(*w)->originUs()) / 1e6 <= at);
    QVERIFY(size_t(row) + 1 == t.eventCount() ||
            double(t.timeUs[size_t(row) + 1] - timelineOf(*w)->originUs()) / 1e6 > at);
    // the time column is wide enough for the last event's time
    const QString last = eventTableOf(*w)
                             ->model()
                             ->index(int(t.eventCount()) - 1, ui::EventTableModel::Time)
                             .data()
                             .toString();
    QVERIFY(eventTableOf(*w)->columnWidth(ui::EventTableModel::Time) >=
            eventTableOf(*w)->fontMetrics().horizontalAdvance(last));
}

void TestDesktop::blockMapLegendAndPlaySpeed() {
    auto w = open("leak_list");
    ui::BlockMapPanel* panel = blockMapOf(*w);
    const QString legend = panel->legend()->text();
    for (const char* entry : {"allocated", "pending free", "free (cached)", "marked"})
        QVERIFY2(legend.contains(entry), qPrintable(legend));
    // each entry is drawn in the colour the view paints it with
    for (const auto& e : panel->view()->legend()) QVERIFY(legend.contains(e.colour.name()));
    panel->view()->setColourBy(ui::BlockMapView::ColourBy::Age);
    QVERIFY(panel->view()->legend().size() == 6); // oldest, newest, before recording, pending, free, marked
    // Auto speed plays the whole capture in about ten seconds of 25 steps each
    const size_t n = w->session()->analysis()->trace(0).eventCount();
    QCOMPARE(panel->eventsPerStep(), std::max<size_t>(1, (n + 249) / 250));
    panel->setPlaying(true);
    auto* play = panel->findChild<QToolButton*>();
    QVERIFY(play && !play->icon().isNull());
    QCOMPARE(play->text(), QStringLiteral("Pause"));
    panel->setPlaying(false);
    QCOMPARE(play->text(), QStringLiteral("Play"));
}

void TestDesktop::darkThemeRecoloursViewsAndIcons() {
    auto w = open("leak_list");
    auto iconInk = [&] { // the lightness of the darkest opaque pixel of the Open icon
        const QImage img = ui::icons::find(w.get(), "open")->icon().pixmap(24, 24).toImage();
        int ink = 255;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if (img.pixelColor(x, y).alpha() == 255)
                    ink = std::min(ink, img.pixelColor(x, y).lightness());
        return ink;
    };
    QVERIFY(w->palette().color(QPalette::Window).lightness() >= 128);
    QVERIFY(iconInk() < 100); // dark strokes on a light window
    ui::applyTheme(ui::Theme::Dark);
    QApplication::processEvents();
    QVERIFY(w->palette().color(QPalette::Window).lightness() < 128);
    QVERIFY(timelineOf(*w)->axisRect(0)->backgroundBrush().color().lightness() < 80);
    QVERIFY(iconInk() > 150); // light strokes now
    ui::applyTheme(ui::Theme::Light);
    QApplication::processEvents();
    QVERIFY(w->palette().color(QPalette::Window).lightness() >= 128);
    QVERIFY(iconInk() < 100);
    // VRAMSCOPE_THEME decides what "follow the desktop" means
    qputenv("VRAMSCOPE_THEME", "dark");
    QVERIFY(ui::desktopPrefersDark());
    qputenv("VRAMSCOPE_THEME", "light");
    QVERIFY(!ui::desktopPrefersDark());
    qunsetenv("VRAMSCOPE_THEME");
}

void TestDesktop::openInEditorSaysWhyItFailed() {
    QTemporaryDir dir;
    const QString file = dir.filePath("train.py");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("x = 1\n") > 0);
    f.close();
    QSettings().setValue("editorCommand", "no-such-editor-vramscope --line {line} {file}");
    const QString missing = ui::openInEditorReason(file, 3);
    QVERIFY2(missing.contains("no-such-editor-vramscope") && missing.contains("not installed"),
             qPrintable(missing));
    QVERIFY(ui::openInEditorReason(dir.filePath("gone.py"), 1).contains("does not exist"));
    QSettings().setValue("editorCommand", "true {file}"); // an editor that starts: no reason
    QCOMPARE(ui::openInEditorReason(file, 3), QString());
    QSettings().remove("editorCommand");
}

void TestDesktop::annotationTicksStayAtTheTopWithFragmentation() {
    // a recording with many step annotations: drawn as ticks along the top, on an axis of their own
    // (the right axis is the fragmentation overlay's fragment count, which would stretch them)
    const QString path = QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/../recorded/leak_global_cache.vscap");
    auto w = std::make_unique<MainWindow>();
    w->resize(1400, 900);
    w->show();
    w->setAnalysis(path, ui::CaptureLoader::openNow(path));
    w->waitForBackgroundWork();
    TimelinePlot* plot = timelineOf(*w);
    plot->setOverlayVisible(TimelinePlot::Overlay::Annotations, true);
    plot->setOverlayVisible(TimelinePlot::Overlay::Fragmentation, true);
    QCPGraph *ticks = nullptr, *fragments = nullptr;
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        if (g->name() == "annotation ticks") ticks = g;
        if (g->name() == "free fragments") fragments = g;
    }
    QVERIFY(ticks && fragments);
    QVERIFY(ticks->data()->size() > 12); // more than get labelled lines
    QVERIFY(ticks->valueAxis() != fragments->valueAxis());
    QVERIFY(ticks->visible());
    // value 0..1 of every tick lies in the top 5 % of the lane
    QCOMPARE(ticks->valueAxis()->range().upper, 1.0);
    QVERIFY(ticks->valueAxis()->range().size() >= 20);
    QVERIFY(plot->legendNames().contains("annotations (record_function, ticks at the top)"));
    plot->setOverlayVisible(TimelinePlot::Overlay::Annotations, false);
    plot->setOverlayVisible(TimelinePlot::Overlay::Fragmentation, false);
    QVERIFY(!ticks->visible());
}

// A record_function name and an _annotate_memory label of 10 KiB each (a file may hold any length):
// the timeline's markers show their first 200 bytes and say the full length, Capture Properties its
// first 4 KiB and the length (issue 47: a record_function name was drawn whole, a 48 MB one took GBs).
void TestDesktop::longLabelsAreShownCapped() {
    SyntheticLoop loop;
    const std::string name = "phase " + std::string(10 << 10, 'n'),
                      label = "kept " + std::string(10 << 10, 'l');
    loop.step();
    loop.annotate(name.c_str());
    const uint64_t at = loop.alloc(1 << 20, loop.stack({{"keep", 3}}));
    Capture& c = loop.capture();
    c.blockAnnotations.push_back({0, c.devices[0].timeUs.back(), at, c.strings.intern(label), StackId{0}});
    loop.step();
    const auto analysis = CaptureAnalysis::analyse(loop.take());
    TimelinePlot plot;
    plot.resize(1200, 600);
    plot.show();
    plot.setAnalysis(analysis);
    plot.setOverlayVisible(TimelinePlot::Overlay::Annotations, true);
    QApplication::processEvents();
    const QString nameLength = QString::fromStdString(humanBytes(int64_t(name.size())));
    const QString labelLength = QString::fromStdString(humanBytes(int64_t(label.size())));
    bool nameShown = false, labelShown = false;
    for (int i = 0; i < plot.itemCount(); ++i) {
        const auto* text = qobject_cast<QCPItemText*>(plot.item(i));
        if (!text) continue;
        const QString t = text->text();
        QVERIFY2(t.toUtf8().size() < 300, qPrintable(t.left(80) + "... of " + QString::number(t.size())));
        nameShown |=
            text->visible() && t.startsWith("phase nnn") && t.endsWith("\u2026 (" + nameLength + " name)");
        labelShown |= t.startsWith("\u270e kept lll") && t.endsWith("\u2026 (" + labelLength + " label)");
    }
    QVERIFY(nameShown);
    QVERIFY(labelShown);
    // Capture Properties: the label's row, 4 KiB and its length
    ui::CapturePropertiesDialog properties(captureFacts(*analysis, 0));
    bool rowCapped = false;
    for (QTreeWidgetItemIterator it(properties.findChild<QTreeWidget*>()); *it; ++it) {
        const QString value = (*it)->text(1);
        QVERIFY(value.toUtf8().size() < int(kDisplayTextBytes) + 100);
        rowCapped |= value.startsWith("kept lll") && value.endsWith("\u2026 (" + labelLength + " label)");
    }
    QVERIFY(rowCapped);
}

// A burst of frees inside one pixel column (78 -> 40 -> 9 GiB within 0.2 ms) and then nothing for
// 10 s: the band is the burst's extremes in that column only, and 9 GiB after it. The fill held the
// burst's whole span until the next event: a solid block from 9 to 78 GiB over the quiet stretch,
// in the README's first window too (leak_list.pickle.zst).
void TestDesktop::columnFillHoldsTheValueABurstLeaves() {
    QCustomPlot plot;
    plot.resize(1000, 400);
    auto* fill = new ui::ColumnFill(plot.xAxis, plot.yAxis);
    fill->setBrush(QColor(0, 0, 255));
    plot.xAxis->setRange(-1, 10), plot.yAxis->setRange(0, 100);
    fill->setData({0.0, 0.0001, 0.0002, 9.0}, {40, 9, 9, 9}, {78, 40, 9, 9});
    const QImage image = plot.toPixmap(1000, 400).toImage();
    const auto filled = [&](double key, double value) {
        const QPoint p(int(std::lround(plot.xAxis->coordToPixel(key))), int(plot.yAxis->coordToPixel(value)));
        return image.pixelColor(p) == QColor(0, 0, 255);
    };
    QVERIFY(filled(0.0, 60));  // the burst's own column spans its extremes
    QVERIFY(!filled(5.0, 60)); // ...and only that column: 9 GiB held until the next event
    QVERIFY(!filled(5.0, 20));
}

QTEST_MAIN(TestDesktop)
#include "tst_desktop.moc"
