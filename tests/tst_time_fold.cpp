// Idle gaps folded on the timeline's axis (issue 46): which stretches count as idle (no event on any
// device, longer than a tenth of the run and than a second), and the map between seconds and the
// axis: monotonic, exact at slope 1 outside the gaps, each gap squeezed to its width, and back again.
#include "analysis/replay/TimeFold.h"

#include <QtTest>

#include <vector>

using namespace vs;

class TestTimeFold : public QObject {
    Q_OBJECT
  private slots:
    void startUpAndPauseBetweenPhasesAreIdle();
    void aGapOnOneDeviceIsNotIdleWhileAnotherWorks();
    void shortPausesAreNotFolded();
    void mapIsMonotonicAndRoundTrips();
    void piecesCoverTheRange();
};

// Events every `step` µs from `from` to `to` (inclusive of `from`).
static std::vector<int64_t> busy(int64_t from, int64_t to, int64_t step) {
    std::vector<int64_t> out;
    for (int64_t t = from; t < to; t += step) out.push_back(t);
    return out;
}

static std::vector<int64_t> concat(std::vector<std::vector<int64_t>> parts) {
    std::vector<int64_t> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

void TestTimeFold::startUpAndPauseBetweenPhasesAreIdle() {
    // model to the GPU at 0 s, 6 s of data preparation, 4 s of steps, 3 s asleep, 4 s of steps
    const CompactSeries t(concat(
        {busy(0, 50'000, 1'000), busy(6'050'000, 10'000'000, 2'000), busy(13'000'000, 17'000'000, 2'000)}));
    const CompactSeries* all[] = {&t};
    const auto gaps = idleGaps(all, 0);
    QCOMPARE(gaps.size(), size_t(2));
    QCOMPARE(gaps[0].from, 0.049);
    QCOMPARE(gaps[0].to, 6.05);
    QCOMPARE(gaps[1].to, 13.0);
    const TimeFold fold = foldIdleGaps(all, 0);
    QVERIFY(fold.folded());
    // the activity (8.05 s) fills 96 % of the axis: each gap is 2 % of it
    const double axisEnd = fold.toAxis(t.back() / 1e6);
    QVERIFY(std::abs(fold.gapAxisWidth() / axisEnd - 0.02) < 1e-3);
    QVERIFY(axisEnd < 9.0);
}

void TestTimeFold::aGapOnOneDeviceIsNotIdleWhileAnotherWorks() {
    const CompactSeries a(concat({busy(0, 1'000'000, 1'000), busy(9'000'000, 10'000'000, 1'000)}));
    const CompactSeries b(busy(500'000, 9'500'000, 10'000)); // device 1 works through device 0's pause
    const CompactSeries* both[] = {&a, &b};
    QVERIFY(idleGaps(both, 0).empty());
    const CompactSeries* one[] = {&a};
    QCOMPARE(idleGaps(one, 0).size(), size_t(1));
}

void TestTimeFold::shortPausesAreNotFolded() {
    // 0.8 s pauses in a 4 s run: long relative to the run, but under a second
    const CompactSeries t(concat(
        {busy(0, 1'000'000, 1'000), busy(1'800'000, 2'500'000, 1'000), busy(3'300'000, 4'000'000, 1'000)}));
    const CompactSeries* all[] = {&t};
    QVERIFY(idleGaps(all, 0).empty());
    QVERIFY(!foldIdleGaps(all, 0).folded());
    // a one-second pause in a 100 s run is under a tenth of it
    const CompactSeries longRun(concat({busy(0, 50'000'000, 10'000), busy(52'000'000, 100'000'000, 10'000)}));
    const CompactSeries* l[] = {&longRun};
    QVERIFY(idleGaps(l, 0).empty());
}

void TestTimeFold::mapIsMonotonicAndRoundTrips() {
    const TimeFold fold({{1.0, 5.0}, {7.0, 20.0}}, 0.1);
    QCOMPARE(fold.toAxis(0.5), 0.5);  // before the first gap: unchanged
    QCOMPARE(fold.toAxis(1.0), 1.0);  // the gap starts where it starts
    QCOMPARE(fold.toAxis(5.0), 1.1);  // and takes 0.1 of axis
    QCOMPARE(fold.toAxis(6.0), 2.1);  // slope 1 between gaps
    QCOMPARE(fold.toAxis(20.0), 3.2); // 7 -> 3.1, 20 -> 3.2
    QCOMPARE(fold.toAxis(21.5), 4.7);
    double previous = -2;
    for (double s = -1; s < 25; s += 0.01) {
        const double a = fold.toAxis(s);
        QVERIFY(a > previous);
        previous = a;
        QVERIFY(std::abs(fold.toSeconds(a) - s) < 1e-9);
    }
    const TimeFold identity;
    QCOMPARE(identity.toAxis(3.25), 3.25);
    QCOMPARE(identity.toSeconds(3.25), 3.25);
}

void TestTimeFold::piecesCoverTheRange() {
    const TimeFold fold({{1.0, 5.0}, {7.0, 20.0}}, 0.1);
    const auto p = fold.pieces(0.0, 4.0);
    QCOMPARE(p.size(), size_t(5)); // before, gap, between, gap, after
    QCOMPARE(p.front().axisFrom, 0.0);
    QCOMPARE(p.back().axisTo, 4.0);
    for (size_t i = 1; i < p.size(); ++i) QCOMPARE(p[i].axisFrom, p[i - 1].axisTo);
    QVERIFY(!p[0].folded && p[1].folded && !p[2].folded && p[3].folded && !p[4].folded);
    QCOMPARE(p[1].secondsFrom, 1.0);
    QCOMPARE(p[1].secondsTo, 5.0);
    QCOMPARE(p[3].secondsTo, 20.0);
    QCOMPARE(p[4].secondsTo, 20.8);
    const auto inside = fold.pieces(1.5, 2.0); // between the gaps only
    QCOMPARE(inside.size(), size_t(1));
    QVERIFY(!inside[0].folded);
    QCOMPARE(inside[0].secondsFrom, 5.4);
}

QTEST_APPLESS_MAIN(TestTimeFold)
#include "tst_time_fold.moc"
