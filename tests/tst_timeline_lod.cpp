// The level-of-detail query: never more than two points per pixel column, and each column keeps
// its true extremes (spikes never vanish), compared with a brute-force scan.
#include "analysis/replay/TimelineLod.h"

#include <QtTest>

#include <random>

using namespace vs;

class TestTimelineLod : public QObject {
    Q_OBJECT
  private slots:
    void budgetAndExtremes_data();
    void budgetAndExtremes();
    void exactWhenZoomedIn();
};

void TestTimelineLod::budgetAndExtremes_data() {
    QTest::addColumn<int>("events");
    QTest::addColumn<int>("columns");
    QTest::newRow("dense") << 200000 << 800;
    QTest::newRow("odd sizes") << 99991 << 333;
    QTest::newRow("few columns") << 5000 << 7;
}

void TestTimelineLod::budgetAndExtremes() {
    QFETCH(int, events);
    QFETCH(int, columns);
    std::mt19937_64 rng(42);
    std::vector<int64_t> t(static_cast<size_t>(events)), v(static_cast<size_t>(events));
    int64_t now = 1'000'000, level = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        now += int64_t(rng() % 5); // several events may share a microsecond
        level += int64_t(rng() % 2001) - 1000;
        if (rng() % 5000 == 0) level += 5'000'000; // a rare spike
        t[i] = now, v[i] = level;
    }
    const CompactSeries times(t), values(v);
    const TimelineLod lod(times, values, 0, t.front());
    const double span = double(t.back() - t.front()) / 1e6;
    for (auto [t0, t1] : {std::pair{0.0, span}, {span * 0.25, span * 0.3}, {span * 0.9, span * 1.1}}) {
        bool exact = true;
        const auto pts = lod.query(t0, t1, columns, &exact);
        QVERIFY(!exact);
        QVERIFY2(pts.size() <= size_t(2 * columns), qPrintable(QString::number(pts.size())));
        // Brute force: the true max and min over events inside [t0, t1] must appear among the points.
        int64_t hi = INT64_MIN, lo = INT64_MAX;
        for (size_t i = 0; i < t.size(); ++i) {
            const double s = double(t[i] - t.front()) / 1e6;
            if (s >= t0 && s < t1) hi = std::max(hi, v[i]), lo = std::min(lo, v[i]);
        }
        double gotHi = -1e300, gotLo = 1e300;
        for (const auto& p : pts) gotHi = std::max(gotHi, p.v), gotLo = std::min(gotLo, p.v);
        QVERIFY(gotHi >= double(hi));
        QVERIFY(gotLo <= double(lo));
        // and every column's own maximum survives
        const double w = (t1 - t0) / columns;
        for (int c = 0; c < columns; c += std::max(1, columns / 50)) {
            int64_t colHi = INT64_MIN;
            for (size_t i = 0; i < t.size(); ++i) {
                const double s = double(t[i] - t.front()) / 1e6;
                if (s >= t0 + c * w && s < t0 + (c + 1) * w) colHi = std::max(colHi, v[i]);
            }
            if (colHi == INT64_MIN) continue;
            const double x = t0 + (c + 0.5) * w;
            bool found = false;
            for (const auto& p : pts) found |= std::abs(p.t - x) < w * 1e-6 && p.v >= double(colHi);
            QVERIFY2(found, qPrintable(QString("column %1 lost its maximum %2").arg(c).arg(colHi)));
        }
    }
}

void TestTimelineLod::exactWhenZoomedIn() {
    const std::vector<int64_t> t{10, 20, 30, 40}, v{5, 7, 3, 9};
    const CompactSeries times(t), values(v);
    const TimelineLod lod(times, values, 1, 0);
    bool exact = false;
    const auto pts = lod.query(0, 1e-4, 100, &exact);
    QVERIFY(exact);
    QCOMPARE(pts.size(), size_t(6)); // value at t0, the four steps, value at t1
    QCOMPARE(pts.front().v, 1.0);
    QCOMPARE(pts[1].t, 10e-6);
    QCOMPARE(pts.back().v, 9.0);
}

QTEST_GUILESS_MAIN(TestTimelineLod)
#include "tst_timeline_lod.moc"
