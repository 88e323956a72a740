// The comparison window and the rank heatmap on the samples recorded on an H200 (offscreen): the
// leaking site first in the window's table, a clear message for a file that cannot be read, the
// outlier rank named, the heatmap's leaking row the brightest at the end, zoom limits, a double click
// opening a rank; a row's tooltip names its stack, or its site where the row keeps no frames. With
// VRAMSCOPE_SHOTS=DIR set, the windows are saved there as PNG.
#include "compare/RankSummaryFile.h"
#include "io/MemoryBudget.h"
#include "load/OpenAnalysis.h"
#include "models/DiffTableModel.h"
#include "models/RankTableModel.h"
#include "session/CaptureLoader.h"
#include "util/AtomicFile.h"
#include "views/compare/CompareView.h"
#include "views/ranks/RankHeatmap.h"
#include "views/ranks/RanksWindow.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace vs;
using namespace vs::ui;

class TestCompareView : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void compareWindowShowsTheLeakFirst();
    void compareWindowSaysWhatFailed();
    void twoRangesOfOneCapture();
    void tooltipOfARowWithoutFrames();
    void rankHeatmap();
    void ranksWindowSaysWhatFailed();
    void slotsOfSeveralIterations();
    void manyRanksSharingRows();
    void ranksFromAFolder();
    void ranksFromAFolderOfSummaries();
    void thousandsOfRanksWithinAPixel();

  private:
    QString unpack(const QString& relative);
    void shot(QWidget* w, const char* name);
    QTemporaryDir dir_;
};

QString TestCompareView::unpack(const QString& relative) {
    const QString to = dir_.filePath(QString(relative).replace('/', '_').chopped(3));
    if (QFile::exists(to)) return to;
    QProcess xz;
    xz.setStandardOutputFile(to);
    xz.start("xz", {"-dc", QString(VRAMSCOPE_SAMPLES_DIR "/../") + relative});
    xz.waitForFinished(60000);
    return to;
}

void TestCompareView::shot(QWidget* w, const char* name) {
    const QByteArray out = qgetenv("VRAMSCOPE_SHOTS");
    if (!out.isEmpty()) QVERIFY(w->grab().save(QString::fromUtf8(out) + "/" + name));
}

namespace {

// renderCells (one pass per rank) against each cell's own value and colour, at widths 1600, 333, 7
// over [f, t] of the whole extent.
void sweepMatchesCells(RankHeatmap& h, bool steps, double f, double t) {
    h.setAlignBySteps(steps);
    h.fitAll();
    const auto [v0, v1] = h.view();
    h.setView(v0 + (v1 - v0) * f, v0 + (v1 - v0) * t);
    const auto& ranks = h.ranks()->ranks;
    for (int width : {1600, 333, 7}) {
        const QImage img = h.renderCells(QSize(width, int(ranks.size())));
        const auto [from, to] = h.view();
        const double px = (to - from) / width;
        for (size_t row = 0; row < ranks.size(); ++row)
            for (int col = 0; col < width; ++col)
                QCOMPARE(img.pixel(col, int(row)),
                         h.colourOf(h.cellValue(ranks[row], from + col * px, from + (col + 1) * px)));
    }
}

} // namespace

void TestCompareView::initTestCase() {
    QVERIFY(dir_.isValid());
}

void TestCompareView::compareWindowShowsTheLeakFirst() {
    const QString leak = unpack("compare/keep_logits_leak.pickle.xz");
    const QString fixed = unpack("compare/keep_logits_fixed.pickle.xz");
    CompareView v;
    v.resize(1200, 860);
    v.show();
    QSignalSpy done(&v, &CompareView::compared);
    v.compareWith(CaptureLoader::openNow(leak), leak, fixed);
    QVERIFY(done.wait(60000));
    QVERIFY(v.diff());
    QCOMPARE(v.sitesModel()->rowCount(), int(v.diff()->sites.size()));
    QCOMPARE(v.sitesModel()->data(v.sitesModel()->index(0, DiffTableModel::Site), Qt::DisplayRole).toString(),
             QString("forward (keep_logits.py:30)"));
    QCOMPARE(
        v.sitesModel()->data(v.sitesModel()->index(0, DiffTableModel::Change), Qt::DisplayRole).toString(),
        QString("shrunk"));
    const QModelIndex first = v.sitesModel()->index(0, DiffTableModel::Site);
    QCOMPARE(v.sitesModel()->data(first, Qt::ToolTipRole).toString(), QString("forward (keep_logits.py:30)"));
    QCOMPARE(v.diff()->iterations.pairs.size(), size_t(30));
    QVERIFY(v.errorText().isEmpty());
    QTest::qWait(50);
    shot(&v, "compare.png");
    auto* tabs = v.findChild<QTabWidget*>();
    QVERIFY(tabs);
    tabs->setCurrentIndex(3); // the flame graph of the difference
    QTest::qWait(50);
    shot(&v, "compare-flame.png");
}

void TestCompareView::compareWindowSaysWhatFailed() {
    const QString leak = unpack("compare/keep_logits_leak.pickle.xz");
    const QString bad = dir_.filePath("bad.pickle");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a pickle at all");
    f.close();
    CompareView v;
    QSignalSpy failed(&v, &CompareView::failed);
    v.compareWith(CaptureLoader::openNow(leak), leak, bad);
    QVERIFY(failed.wait(30000));
    QVERIFY(v.errorText().startsWith("Could not open bad.pickle: "));
    QVERIFY(!v.diff());
}

void TestCompareView::twoRangesOfOneCapture() {
    // the leaking run's first and last five seconds... by its own clock: first third against last third
    const QString leak = unpack("compare/keep_logits_leak.pickle.xz");
    auto a = CaptureLoader::openNow(leak);
    const double span = double(a->trace(0).timeUs.back() - a->originUs()) / 1e6;
    CompareView v;
    QSignalSpy done(&v, &CompareView::compared);
    v.compareRanges(a, leak, {0, span / 3}, {2 * span / 3, span});
    QVERIFY(done.wait(60000));
    QVERIFY(v.diff()->context.empty());
    QCOMPARE(QString::fromStdString(std::string(v.diff()->sites.front().site)),
             QString("forward (keep_logits.py:30)"));
    QVERIFY(v.diff()->sites.front().liveDelta() > 0); // the later range holds more of the kept logits
}

// Rows past the kTextRows largest keep no frames (a million distinct stacks would be a string per
// frame): the tooltip shows the row's site, or says there is no stack, never nothing.
void TestCompareView::tooltipOfARowWithoutFrames() {
    auto d = std::make_shared<CaptureDiff>();
    const auto texts =
        std::make_shared<const std::deque<std::string>>(std::deque<std::string>{"keep (train.py:77)"});
    d->siteTexts = texts;
    DiffRow withFrames;
    withFrames.site = texts->front(), withFrames.frames = {"main (train.py:1)", "keep (train.py:77)"};
    DiffRow past = withFrames;
    past.frames.clear();
    d->stacks = {withFrames, past, DiffRow{}};
    DiffTableModel m;
    m.setRows(d, d->stacks);
    const auto tip = [&](int row) {
        return m.data(m.index(row, DiffTableModel::Site), Qt::ToolTipRole).toString();
    };
    QCOMPARE(tip(0), QString("main (train.py:1)\nkeep (train.py:77)"));
    QCOMPARE(tip(1), QString("keep (train.py:77)"));
    QCOMPARE(tip(2), QString("(no stack recorded)"));
}

void TestCompareView::rankHeatmap() {
    QStringList files;
    for (int r = 0; r < 4; ++r) files << unpack(QString("ranks/ddp4/rank%1.pickle.xz").arg(r));
    RanksWindow w;
    w.resize(1200, 700);
    w.show();
    QSignalSpy loaded(&w, &RanksWindow::loaded);
    w.open(files);
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.ranks()->ranks.size(), size_t(4));
    QVERIFY2(w.outlierText().startsWith("rank 2: "), qPrintable(w.outlierText()));
    // one pixel row per rank: at the end the leaking rank's cell is the brightest (viridis: green rises)
    RankHeatmap* h = w.heatmap();
    const QImage cells = h->renderCells(QSize(200, 4));
    const int x = 195;
    for (int r : {0, 1, 3}) QVERIFY(qGreen(cells.pixel(x, 2)) > qGreen(cells.pixel(x, r)));
    // the fast row sweep draws what every cell computed on its own would, zoomed in and out, over
    // time and aligned by step
    for (const auto& [steps, f, t] : {std::tuple{false, 0.0, 1.0},
                                      {false, 0.3, 0.35},
                                      {false, 0.8, 0.80001},
                                      {false, 0.5, 1.0},
                                      {true, 0.0, 1.0},
                                      {true, 0.2, 0.5},
                                      {true, 0.9, 0.9001}})
        sweepMatchesCells(*h, steps, f, t);
    h->setAlignBySteps(false);
    // zoom stays inside the run; Home fits again
    h->setView(-100, 1e18);
    const auto whole = h->view();
    QCOMPARE(whole.first, 0.0);
    h->setView(whole.second / 4, whole.second / 2);
    QCOMPARE(h->view().second, whole.second / 2);
    h->fitAll();
    QTest::qWait(50);
    shot(&w, "ranks.png");
    h->setAlignBySteps(true);
    QCOMPARE(h->view().second, 30.0); // 30 steps, one column each
    QTest::qWait(50);
    shot(&w, "ranks-steps.png");
    h->setMetric(RankHeatmap::Metric::Reserved);
    QTest::qWait(50);
    shot(&w, "ranks-steps-reserved.png");
    h->setMetric(RankHeatmap::Metric::Allocated);
    // a double click on a rank's row asks for its full view
    QSignalSpy open(&w, &RanksWindow::openRank);
    const QRect area = h->rect().adjusted(64, 6, -10, -40);
    QTest::mouseDClick(h, Qt::LeftButton, {}, QPoint(area.center().x(), area.top() + area.height() * 5 / 8));
    QCOMPARE(open.size(), 1);
    QCOMPARE(open[0][0].toString(), files[2]);
}

void TestCompareView::ranksWindowSaysWhatFailed() {
    RanksWindow w;
    w.open({dir_.filePath("no-such-folder-or-file")});
    w.waitForJobs();
    QTest::qWait(20);
    QVERIFY2(w.errorText().startsWith("None of the 1 files could be read"), qPrintable(w.errorText()));
}

void TestCompareView::slotsOfSeveralIterations() {
    // ranks whose long runs keep one slot per 1, 2 or 4 iterations line up by iteration all the same
    auto set = std::make_shared<RankSet>();
    for (uint32_t g : {1u, 2u, 4u}) {
        RankSummary r;
        r.rank = int(g), r.path = "r", r.events = 100, r.firstUs = 1000, r.lastUs = 2000 + g;
        r.stepsPerSlot = g, r.iterations = 64;
        for (size_t k = 0; k < 64 / g; ++k) {
            r.stepPeak.push_back(int64_t((k * 37 + g * 11) % 50) << 20),
                r.stepUs.push_back(1000 + int64_t(k));
            r.stepPeakReserved.push_back(r.stepPeak.back() + (int64_t((k * 13 + g) % 7) << 20));
        }
        r.binAllocated.assign(RankSummary::kBins, 1 << 20), r.binReserved = r.binAllocated;
        r.peakAllocated = 50 << 20;
        set->ranks.push_back(std::move(r));
    }
    finishRankSet(*set);
    RankHeatmap h;
    h.setRanks(set);
    h.setAlignBySteps(true);
    QCOMPARE(h.view().second, 64.0);
    for (const auto& [f, t] : {std::pair{0.0, 1.0}, {0.1, 0.3}, {0.5, 0.5001}})
        sweepMatchesCells(h, true, f, t);
    // iteration 9 of the rank keeping slots of 4 is its slot 2
    QCOMPARE(h.cellValue(set->ranks[2], 9, 9.5), set->ranks[2].stepPeak[2]);
    // reserved, aligned by step: each cell the step's highest reserved, not allocated
    h.setMetric(RankHeatmap::Metric::Reserved);
    for (const auto& [f, t] : {std::pair{0.0, 1.0}, {0.1, 0.3}}) sweepMatchesCells(h, true, f, t);
    QCOMPARE(h.cellValue(set->ranks[2], 9, 9.5), set->ranks[2].stepPeakReserved[2]);
    QVERIFY(set->ranks[2].stepPeakReserved[2] != set->ranks[2].stepPeak[2]);
}

void TestCompareView::manyRanksSharingRows() {
    // 100 ranks (drawn in two halves on two threads) into 250, 100 and 33 pixel rows: each pixel is
    // the highest cell of the ranks that share its row
    auto set = std::make_shared<RankSet>();
    for (int k = 0; k < 100; ++k) {
        RankSummary r;
        r.rank = k, r.path = "r", r.events = 100, r.firstUs = 1000 + k * 7, r.lastUs = 90000 - k * 13;
        for (size_t b = 0; b < RankSummary::kBins; ++b)
            r.binAllocated.push_back(int64_t((b * 31 + size_t(k) * 17) % 997) << 12);
        r.binReserved = r.binAllocated;
        r.peakAllocated = *std::max_element(r.binAllocated.begin(), r.binAllocated.end());
        set->ranks.push_back(std::move(r));
    }
    finishRankSet(*set);
    RankHeatmap h;
    h.setRanks(set);
    h.setView(20000, 60000);
    const auto [from, to] = h.view();
    for (int rows : {250, 100, 33}) {
        const int width = 300;
        const QImage img = h.renderCells(QSize(width, rows));
        const double px = (to - from) / width;
        for (int y = 0; y < rows; ++y)
            for (int col = 0; col < width; ++col) {
                int64_t v = -1;
                bool any = false;
                for (int i = 0; i < 100; ++i) {
                    const int top = i * rows / 100, next = (i + 1) * rows / 100;
                    if (y < top || y >= std::max(top + 1, next)) continue;
                    any = true;
                    v = std::max(v,
                                 h.cellValue(set->ranks[size_t(i)], from + col * px, from + (col + 1) * px));
                }
                QVERIFY(any);
                QCOMPARE(img.pixel(col, y), h.colourOf(v));
            }
    }
}

void TestCompareView::ranksFromAFolder() {
    // File → Open Ranks Folder…: a job's dump folder holds the per-rank captures among other files;
    // the captures are found and ordered by the rank in their names, whatever the directory order
    QTemporaryDir folder;
    for (int r : {3, 1, 0, 2})
        QVERIFY(QFile::copy(unpack(QString("ranks/ddp4/rank%1.pickle.xz").arg(r)),
                            folder.filePath(QString("trace_rank_%1.pickle").arg(r))));
    QFile notes(folder.filePath("notes.txt"));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not a capture\n");
    notes.close();
    RanksWindow w;
    QSignalSpy loaded(&w, &RanksWindow::loaded);
    w.open({folder.path()});
    QVERIFY(loaded.wait(60000));
    QCOMPARE(w.ranks()->ranks.size(), size_t(4));
    for (int r = 0; r < 4; ++r) QCOMPARE(w.ranks()->ranks[size_t(r)].rank, r);
    QVERIFY2(w.outlierText().startsWith("rank 2: "), qPrintable(w.outlierText()));
}

void TestCompareView::ranksFromAFolderOfSummaries() {
    // File → Open Ranks Folder… on what `vramscope-cli summarize` wrote on the cluster: no capture
    // there, the table filled from the summaries alone
    QTemporaryDir folder;
    std::vector<RankSummary> made;
    for (int r = 0; r < 4; ++r) {
        const QString capture = unpack(QString("ranks/ddp4/rank%1.pickle.xz").arg(r));
        made.push_back(summariseRank(*openAnalysis(capture.toStdString())));
        const auto stamp = SourceStamp::of(capture.toStdString());
        QVERIFY(stamp);
        writeFileAtomically(folder.filePath(QString("rank%1.pickle.vsrank").arg(r)).toStdString(),
                            encodeRankSummary(made.back(), *stamp));
    }
    RanksWindow w;
    QSignalSpy loaded(&w, &RanksWindow::loaded);
    w.open({folder.path()});
    QVERIFY(loaded.wait(60000));
    auto* table = w.findChild<QTableView*>();
    QVERIFY(table);
    const QAbstractItemModel* m = table->model();
    QCOMPARE(m->rowCount(), 4);
    for (int row = 0; row < 4; ++row) {
        QCOMPARE(m->index(row, RankTableModel::Rank).data().toString(), QString::number(row));
        QCOMPARE(m->index(row, RankTableModel::PeakAllocated).data(RankTableModel::kSortRole).toLongLong(),
                 made[size_t(row)].peakAllocated);
        QCOMPARE(m->index(row, RankTableModel::Iterations).data().toString(),
                 QString::number(made[size_t(row)].iterations));
    }
    QCOMPARE(m->index(2, RankTableModel::Outlier).data().toString(), QString("outlier"));
    QVERIFY2(w.outlierText().startsWith("rank 2: "), qPrintable(w.outlierText()));
    QCOMPARE(w.heatmap()->ranks()->ranks.size(), size_t(4));
    shot(&w, "ranks-summaries.png");
    // a set over --max-memory is said in the window (issue 47: the refusal was dropped, the window
    // said "Reading 4 ranks…" for ever)
    const uint64_t budget = MemoryBudget::processDefault();
    MemoryBudget::setProcessDefault(64 << 10);
    RanksWindow over;
    over.open({folder.path()});
    QTRY_VERIFY_WITH_TIMEOUT(!over.errorText().isEmpty(), 60000);
    MemoryBudget::setProcessDefault(budget);
    QVERIFY2(over.errorText().startsWith("reading 4 ranks: their summaries") &&
                 over.errorText().endsWith("raise --max-memory if you trust the files"),
             qPrintable(over.errorText()));
    QVERIFY(!over.ranks());
}

void TestCompareView::thousandsOfRanksWithinAPixel() {
    // the cheaper ways for thousands of ranks (merged pixel rows; slices painted over their pixels),
    // forced on 300 ranks: each pixel is at least the exact cell (no value lost) and at most the
    // highest exact cell of it and its two neighbours (widened by a pixel at most). Five levels in
    // long runs, far apart on the colour scale, so that a colour tells its level.
    const int64_t levels[5] = {0, int64_t(64) << 20, int64_t(128) << 20, int64_t(192) << 20,
                               int64_t(255) << 20};
    auto set = std::make_shared<RankSet>();
    for (int k = 0; k < 300; ++k) {
        RankSummary r;
        r.rank = k, r.path = "r", r.events = 100, r.firstUs = 1000 + k * 7, r.lastUs = 90000 - k * 13;
        for (size_t b = 0; b < RankSummary::kBins; ++b)
            r.binAllocated.push_back(levels[(b / 97 + size_t(k)) % 5]);
        r.binReserved = r.binAllocated;
        r.peakAllocated = levels[4];
        set->ranks.push_back(std::move(r));
    }
    finishRankSet(*set);
    RankHeatmap h;
    h.setRanks(set);
    const auto [whole0, whole1] = h.view();
    const auto exactCells = [&](int rows, int width) {
        std::vector<std::vector<int64_t>> v(size_t(rows), std::vector<int64_t>(size_t(width), -1));
        const auto [from, to] = h.view();
        const double px = (to - from) / width;
        for (int i = 0; i < 300; ++i)
            for (int col = 0; col < width; ++col) {
                int64_t& cell = v[size_t(i * rows / 300)][size_t(col)];
                cell = std::max(cell,
                                h.cellValue(set->ranks[size_t(i)], from + col * px, from + (col + 1) * px));
            }
        return v;
    };
    // 50 rows over the whole run: merged rows; 600 rows, and zoomed 64x: slices over their pixels
    for (const auto& [rows, zoom] : {std::pair{50, 1.0}, {600, 1.0}, {50, 64.0}}) {
        const int width = 200;
        const double span = (whole1 - whole0) / zoom;
        h.setView(whole0 + 0.3 * (whole1 - whole0), whole0 + 0.3 * (whole1 - whole0) + span);
        if (zoom == 1.0) h.fitAll();
        h.setExactWork(0);
        const QImage img = h.renderCells(QSize(width, rows));
        h.setExactWork(RankHeatmap::kDefaultExactWork);
        const auto exact = exactCells(rows, width);
        for (int y = 0; y < rows; ++y) {
            // more lines than ranks: a rank's lines repeat its first (where exactCells put it)
            const auto& e = exact[size_t(rows > 300 ? (y * 300 / rows) * rows / 300 : y)];
            for (int col = 0; col < width; ++col) {
                const int64_t lo = e[size_t(col)];
                int64_t hi = lo;
                for (int c : {col - 1, col + 1})
                    if (c >= 0 && c < width) hi = std::max(hi, e[size_t(c)]);
                bool fits = img.pixel(col, y) == h.colourOf(lo);
                for (int64_t level : levels)
                    fits = fits || (level >= lo && level <= hi && img.pixel(col, y) == h.colourOf(level));
                QVERIFY2(
                    fits,
                    qPrintable(QString("rows %1, zoom %2: pixel %3,%4").arg(rows).arg(zoom).arg(col).arg(y)));
            }
        }
    }
}

QTEST_MAIN(TestCompareView)
#include "tst_compare_view.moc"
