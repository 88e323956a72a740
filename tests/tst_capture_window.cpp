// Loading a window of a capture (--from/--to, File > Open Range...): the allocator state at the
// window's start, the series after every event in it and the state at moments inside it equal the
// full load's, on every sample (baselines, cut histories, expandable segments, side streams) and in
// the CLI.
#include "TestData.h"
#include "analysis/replay/CaptureWindow.h"
#include "io/LoadError.h"
#include "load/OpenAnalysis.h"

#include <QProcess>
#include <QtTest>

using namespace vs;

class TestCaptureWindow : public QObject {
    Q_OBJECT
  private slots:
    void windowEqualsFullLoad_data();
    void windowEqualsFullLoad();
    void cliStateEqualsFullLoad();
    void emptyWindowIsRefused();
};

namespace {

using Analysis = std::shared_ptr<const CaptureAnalysis>;

// Blocks compared by what the allocator knows; the alloc event is compared as an index of the full
// trace (`shift` is the window's first event there; kNoEvent when allocated before the window).
void compareStates(const std::vector<StateSegment>& full, const std::vector<StateSegment>& win,
                   size_t shift) {
    QCOMPARE(win.size(), full.size());
    for (size_t s = 0; s < full.size(); ++s) {
        QCOMPARE(win[s].address, full[s].address);
        QCOMPARE(win[s].size, full[s].size);
        QCOMPARE(win[s].stream, full[s].stream);
        QCOMPARE(win[s].expandable, full[s].expandable);
        QCOMPARE(win[s].smallPool, full[s].smallPool);
        QCOMPARE(win[s].blocks.size(), full[s].blocks.size());
        for (size_t b = 0; b < full[s].blocks.size(); ++b) {
            const StateBlock &f = full[s].blocks[b], &w = win[s].blocks[b];
            QCOMPARE(w.address, f.address);
            QCOMPARE(w.size, f.size);
            QCOMPARE(w.requestedSize, f.requestedSize);
            QCOMPARE(w.state, f.state);
            const bool before = f.allocEvent == kNoEvent || f.allocEvent < shift;
            QCOMPARE(w.allocEvent, before ? kNoEvent : uint32_t(f.allocEvent - shift));
        }
    }
}

void compareDevice(const CaptureAnalysis& full, const CaptureAnalysis& win, size_t d, int64_t fromUs) {
    const DeviceTrace& ft = full.trace(d);
    const DeviceTrace& wt = win.trace(d);
    const size_t first =
        size_t(std::lower_bound(ft.timeUs.begin(), ft.timeUs.end(), fromUs) - ft.timeUs.begin());
    QVERIFY(first + wt.eventCount() <= ft.eventCount());
    // The state at the window's start: what the full replay has after the events before it.
    compareStates(Replay::stateAfter(ft, full.capture().streams, full.replay(d), full.rules(), first),
                  win.replay(d).initialState, first);
    const Totals startTotals = first ? full.replay(d).after(first - 1) : full.replay(d).initial;
    QCOMPARE(win.replay(d).initial, startTotals);
    // The series after every event, and block sizes, as in the full replay.
    for (size_t k = 0; k < wt.eventCount(); ++k) {
        QCOMPARE(wt.timeUs[k], ft.timeUs[first + k]);
        QCOMPARE(win.replay(d).after(k), full.replay(d).after(first + k));
        if (wt.action[k] == Action::Alloc)
            QCOMPARE(win.replay(d).blockSizeOf(wt, uint32_t(k)),
                     full.replay(d).blockSizeOf(ft, uint32_t(first + k)));
    }
    QCOMPARE(win.replay(d).inconsistencies, uint32_t(0));
    QVERIFY2(win.replay(d).finalMatchesSnapshot, win.replay(d).finalMismatch.c_str());
    // Moments inside the window: the state, as the block map and `state --at` show it.
    for (size_t k = 0; k < wt.eventCount(); k += std::max<size_t>(1, wt.eventCount() / 7))
        compareStates(full.stateAt(d, wt.timeUs[k]), win.stateAt(d, wt.timeUs[k]), first);
}

} // namespace

void TestCaptureWindow::windowEqualsFullLoad_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("from"); // fraction of the longest device's events, by index
    QTest::addColumn<double>("to");   // (samples pause between phases: fractions of time hit gaps)
    for (const QString& n : test::sampleNames()) {
        QTest::newRow(qPrintable(n + " middle")) << n << 0.3 << 0.7;
        QTest::newRow(qPrintable(n + " start")) << n << 0.0 << 0.5;
        QTest::newRow(qPrintable(n + " end")) << n << 0.6 << 2.0;
    }
}

void TestCaptureWindow::windowEqualsFullLoad() {
    QFETCH(QString, name);
    QFETCH(double, from);
    QFETCH(double, to);
    const std::string path = test::samplePath(name);
    const Analysis full = openAnalysis(path);
    size_t longest = 0;
    for (size_t d = 1; d < full->deviceCount(); ++d)
        if (full->trace(d).eventCount() > full->trace(longest).eventCount()) longest = d;
    const DeviceTrace& lt = full->trace(longest);
    // Bounds at events' own times: an event at the start is in, one at the end is in too.
    auto timeAt = [&](double f) {
        return f > 1 ? 1e9 : full->secondsOf(lt.timeUs[size_t(f * double(lt.eventCount() - 1))]);
    };
    const TimeWindow w{timeAt(from), timeAt(to)};
    const Analysis win = openAnalysis(path, {}, {w, false});
    QCOMPARE(win->originUs(), full->originUs());
    QVERIFY(win->capture().window.cut);
    QCOMPARE(win->deviceCount(), full->deviceCount());
    size_t in = 0;
    for (size_t d = 0; d < full->deviceCount(); ++d) {
        in += win->trace(d).eventCount();
        compareDevice(*full, *win, d, full->originUs() + std::llround(w.fromS * 1e6));
        if (QTest::currentTestFailed()) return;
    }
    QCOMPARE(uint64_t(in), win->capture().window.eventsIn);
    QVERIFY(win->warnings().front().find("only the window") == 0);
    if (to > 1) { // reaching the end: the recorded final block list is still the truth
        for (size_t d = 0; d < full->deviceCount(); ++d)
            QCOMPARE(win->trace(d).finalSegments, full->trace(d).finalSegments);
        QCOMPARE(win->summary(0).final, full->summary(0).final);
    }
}

void TestCaptureWindow::cliStateEqualsFullLoad() {
    const QString path = QString::fromStdString(test::samplePath("leak_cut"));
    auto run = [](const QStringList& args) {
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_CLI), args);
        p.waitForFinished(60000);
        return std::make_pair(p.exitCode(), p.readAllStandardOutput());
    };
    for (const char* at : {"0.13", "1", "6.27"}) {
        const auto full = run({"state", path, "--at", at, "--json"});
        const auto win = run({"state", path, "--from", "0.13", "--to", "6.27", "--at", at, "--json"});
        QCOMPARE(full.first, 0);
        QCOMPARE(win.first, 0);
        QVERIFY(full.second.size() > 100);
        QCOMPARE(win.second, full.second);
    }
}

void TestCaptureWindow::emptyWindowIsRefused() {
    QProcess p;
    p.start(QStringLiteral(VRAMSCOPE_CLI),
            {"summary", QString::fromStdString(test::samplePath("leak_cut")), "--from", "1", "--to", "2"});
    p.waitForFinished(60000);
    QCOMPARE(p.exitCode(), 2);
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.contains("no event lies in the window (the capture spans 0–6.283 s)"), err.constData());
    p.start(QStringLiteral(VRAMSCOPE_CLI),
            {"summary", QString::fromStdString(test::samplePath("leak_cut")), "--from", "3", "--to", "2"});
    p.waitForFinished(60000);
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("--to after --from"));
}

QTEST_GUILESS_MAIN(TestCaptureWindow)
#include "tst_capture_window.moc"
