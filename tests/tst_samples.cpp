// Every figure vramscope derives from the bundled samples equals what PyTorch itself reported while
// they were recorded (samples/captures/*.truth.json, made by samples/make_samples.py on an H200).
#include "TestData.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/composition/Fragmentation.h"
#include "analysis/replay/AllocatorState.h"
#include "analysis/replay/PackedState.h"
#include "load/OpenAnalysis.h"

#include <QJsonArray>
#include <QtTest>

#include <algorithm>
#include <tuple>

using namespace vs;

class TestSamples : public QObject {
    Q_OBJECT
  private slots:
    void allSamplesPresent();
    void stepsEqualTruth_data();
    void stepsEqualTruth();
    void finalReplayEqualsSnapshotBlockForBlock_data() { stepsEqualTruth_data(); }
    void finalReplayEqualsSnapshotBlockForBlock();
    void midStatesEqualAllocatorsOwnList_data() { stepsEqualTruth_data(); }
    void midStatesEqualAllocatorsOwnList();
    void cutHistoryHasBaseline();
    void sideStreamKeepsPendingFree();
    void oomIsCounted();
    void fragmentationSeriesMatchesStates();
    void stateFromCheckpointsEqualsReplayFromStart();
    void packedStateKeepsEveryField();
};

namespace {
std::shared_ptr<const CaptureAnalysis> open(const QString& name) {
    return openAnalysis(vs::test::samplePath(name));
}

using Key = std::tuple<uint64_t, uint64_t, QString>;
std::vector<Key> keys(const std::vector<StateSegment>& segs) {
    std::vector<Key> out;
    for (const auto& s : segs)
        for (const auto& b : s.blocks)
            out.emplace_back(b.address, b.size, QString::fromUtf8(blockStateName(b.state).data()));
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

void TestSamples::allSamplesPresent() {
    const QStringList want{"clean_loop",  "expandable", "leak_cut",    "leak_list",
                           "mixed_sizes", "oom",        "side_stream", "stacks_all"};
    QCOMPARE(vs::test::sampleNames(), want);
}

void TestSamples::stepsEqualTruth_data() {
    QTest::addColumn<QString>("name");
    for (const QString& n : vs::test::sampleNames()) QTest::newRow(qPrintable(n)) << n;
}

void TestSamples::stepsEqualTruth() {
    QFETCH(QString, name);
    const auto a = open(name);
    const QJsonObject truth = vs::test::sampleTruth(name);
    QCOMPARE(a->deviceCount(), size_t(1));
    const DeviceTrace& t = a->trace(0);
    const ReplayResult& r = a->replay(0);
    int compared = 0;
    for (const auto& v : truth["steps"].toArray()) {
        const auto s = v.toObject();
        const auto when = static_cast<int64_t>(s["t_us"].toDouble());
        if (t.eventCount() == 0 || when < t.timeUs.front()) continue; // before the recorded window
        const auto i = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), when) - t.timeUs.begin() - 1;
        QCOMPARE(r.allocated[size_t(i)], static_cast<int64_t>(s["allocated"].toDouble()));
        QCOMPARE(r.reserved[size_t(i)], static_cast<int64_t>(s["reserved"].toDouble()));
        ++compared;
    }
    QVERIFY2(compared >= 3, "too few steps inside the recorded window");
    const DeviceSummary sum = a->summary(0);
    QCOMPARE(sum.final.allocated, static_cast<int64_t>(truth["final_allocated"].toDouble()));
    QCOMPARE(sum.final.reserved, static_cast<int64_t>(truth["final_reserved"].toDouble()));
    QCOMPARE(sum.final.active, static_cast<int64_t>(truth["final_active"].toDouble()));
    QCOMPARE(sum.peak.allocated, static_cast<int64_t>(truth["max_memory_allocated"].toDouble()));
    QCOMPARE(sum.peak.reserved, static_cast<int64_t>(truth["max_memory_reserved"].toDouble()));
}

void TestSamples::finalReplayEqualsSnapshotBlockForBlock() {
    QFETCH(QString, name);
    const auto a = open(name);
    const DeviceTrace& t = a->trace(0);
    const auto replayed =
        Replay::stateAfter(t, a->capture().streams, a->replay(0), a->rules(), t.eventCount());
    const auto snapshot = toStateSegments(t.finalSegments);
    QCOMPARE(keys(replayed), keys(snapshot));
    QCOMPARE(replayed.size(), snapshot.size()); // same segment boundaries too
    for (size_t i = 0; i < replayed.size(); ++i) {
        QCOMPARE(replayed[i].address, snapshot[i].address);
        QCOMPARE(replayed[i].size, snapshot[i].size);
    }
    QVERIFY(a->replay(0).finalMatchesSnapshot);
    QCOMPARE(a->replay(0).inconsistencies, 0u);
}

void TestSamples::midStatesEqualAllocatorsOwnList() {
    QFETCH(QString, name);
    const auto a = open(name);
    const DeviceTrace& t = a->trace(0);
    const QJsonArray mids = vs::test::sampleTruth(name)["mid_states"].toArray();
    std::vector<int64_t> marks;
    for (size_t i = 0; i < t.eventCount(); ++i)
        if (t.action[i] == Action::Snapshot) marks.push_back(t.timeUs[i]);
    const size_t n = std::min<size_t>(marks.size(), size_t(mids.size()));
    if (n == 0) QSKIP("this sample has no mid-run block lists");
    for (size_t k = 0; k < n;
         ++k) { // the newest n marks are the newest n mid states (a cut trace loses old ones)
        const auto mid = mids[mids.size() - qsizetype(n) + qsizetype(k)].toObject();
        std::vector<Key> want;
        for (const auto& b : mid["blocks"].toArray()) {
            const auto arr = b.toArray();
            want.emplace_back(uint64_t(arr[0].toDouble()), uint64_t(arr[1].toDouble()), arr[2].toString());
        }
        std::sort(want.begin(), want.end());
        const auto got = keys(a->stateAt(0, marks[marks.size() - n + k]));
        QCOMPARE(got, want);
    }
}

void TestSamples::cutHistoryHasBaseline() {
    const auto a = open("leak_cut");
    const ReplayResult& r = a->replay(0);
    QVERIFY(r.recoveredBaseline);
    QVERIFY(r.baselineBlocks > 0);
    // The 3 MiB tensor made before the window is among the baseline blocks, whole (3 MiB + 5 B -> rounded).
    bool found = false;
    for (const auto& s : r.initialState)
        for (const auto& b : s.blocks)
            found |= b.state == BlockState::ActiveAllocated && b.requestedSize == (3u << 20) + 5 &&
                     b.size == (3u << 20) + 512;
    QVERIFY(found);
    QVERIFY(std::any_of(a->warnings().begin(), a->warnings().end(), [](const std::string& w) {
        return w.find("before the first recorded event") != std::string::npos;
    }));
}

void TestSamples::sideStreamKeepsPendingFree() {
    const auto a = open("side_stream");
    const auto s = a->summary(0);
    QVERIFY(s.final.active > s.final.allocated); // one block waits for the side stream
    const auto end = keys(a->stateAt(0, INT64_MAX));
    QVERIFY(std::any_of(end.begin(), end.end(),
                        [](const Key& k) { return std::get<2>(k) == "active_pending_free"; }));
}

void TestSamples::oomIsCounted() {
    const auto a = open("oom");
    QCOMPARE(a->summary(0).oomEvents, uint32_t(vs::test::sampleTruth("oom")["num_ooms"].toInt()));
}

void TestSamples::fragmentationSeriesMatchesStates() {
    for (const QString name : {"mixed_sizes", "expandable", "side_stream"}) {
        const auto a = open(name);
        const DeviceTrace& t = a->trace(0);
        const auto series = fragmentationSeries(t, a->capture().streams, a->replay(0), a->rules(), 50);
        QVERIFY(series.size() >= 40);
        QCOMPARE(size_t(series.back().events), t.eventCount());
        for (size_t k = 0; k < series.size(); k += 7) { // against the state rebuilt at that moment
            const auto segs =
                Replay::stateAfter(t, a->capture().streams, a->replay(0), a->rules(), series[k].events);
            uint64_t largest = 0, free = 0;
            uint32_t fragments = 0;
            for (const auto& s : segs)
                for (const auto& b : s.blocks)
                    if (b.state == BlockState::Inactive)
                        largest = std::max(largest, b.size), free += b.size, ++fragments;
            QCOMPARE(series[k].largestFree, largest);
            QCOMPARE(series[k].freeFragments, fragments);
            QCOMPARE(series[k].cachedFree, int64_t(free));
            const size_t i = series[k].events - 1;
            QCOMPARE(series[k].cachedFree, a->replay(0).reserved[i] - a->replay(0).active[i]);
        }
        // a request bigger than every free block but within the cached total is flagged
        for (size_t i : wouldNeedNewSegment(series, 3 << 20))
            QVERIFY(series[i].largestFree < (3u << 20) && series[i].cachedFree >= (3 << 20));
    }
}

void TestSamples::stateFromCheckpointsEqualsReplayFromStart() {
    // With a checkpoint every 16 events, the state rebuilt from checkpoints after every recorded
    // event equals one replay carried from the start, block for block.
    for (const QString& name : vs::test::sampleNames()) {
        const auto a = open(name);
        const DeviceTrace& t = a->trace(0);
        const ReplayResult r = Replay::run(t, a->capture().streams, a->rules(), nullptr, 16);
        if (t.eventCount() > 200) QVERIFY(r.checkpoints.size() >= 3); // so rebuilding really starts from them
        AllocatorState carried = AllocatorState::fromSegments(r.initialState, a->rules());
        for (size_t k = 1; k <= t.eventCount(); ++k) {
            Replay::apply(carried, t, k - 1, a->capture().streams);
            const auto rebuilt = Replay::stateAfter(t, a->capture().streams, r, a->rules(), k);
            if (keys(rebuilt) != keys(carried.segments()))
                QFAIL(qPrintable(QString("%1: state after %2 events differs").arg(name).arg(k)));
        }
    }
}

namespace {
bool sameState(const std::vector<StateSegment>& a, const std::vector<StateSegment>& b) {
    const auto key = [](const StateSegment& s) {
        return std::tie(s.address, s.size, s.stream, s.expandable, s.smallPool, s.blocks);
    };
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [&](auto& x, auto& y) { return key(x) == key(y); });
}
} // namespace

void TestSamples::packedStateKeepsEveryField() {
    // What a checkpoint packs unpacks to the same segments and blocks, every field: the states of
    // every sample along its recording, and one made of the rare cases (a gap between blocks, sizes
    // off the 512-byte grid, requests above the size or none, blocks from before the recording,
    // alloc events out of order, segments out of address order).
    for (const QString& name : vs::test::sampleNames()) {
        const auto a = open(name);
        const DeviceTrace& t = a->trace(0);
        AllocatorState st = AllocatorState::fromSegments(a->replay(0).initialState, a->rules());
        for (size_t k = 0; k < t.eventCount(); ++k) {
            Replay::apply(st, t, k, a->capture().streams);
            if (k % 7) continue;
            const auto segments = st.segments();
            if (!sameState(PackedState(segments).unpack(), segments))
                QFAIL(qPrintable(
                    QString("%1: the state after %2 events unpacks differently").arg(name).arg(k + 1)));
        }
    }
    using B = BlockState;
    const std::vector<StateSegment> odd = {
        {0x7f0000200000,
         4 << 20,
         0xdead,
         true,
         false,
         {{0x7f0000200000, 1536, 1500, B::ActiveAllocated, 900},
          {0x7f0000200600, 1000, 0, B::Inactive, kNoEvent},
          {0x7f0000300000, 3 << 20, (3 << 20) + 7, B::ActivePendingFree, 12}}},
        {0x7f0000000000,
         2 << 20,
         0,
         false,
         true,
         {{0x7f0000000000, 2 << 20, 1, B::ActiveAllocated, 4000000000u}}},
        {0x7f0000100000, 0, 0, false, false, {}},
    };
    QVERIFY(sameState(PackedState(odd).unpack(), odd));
    QVERIFY2(PackedState(odd).heapBytes() < 5 * sizeof(StateBlock) / 2, /* 5 blocks, 3 segments */
             qPrintable(QString::number(PackedState(odd).heapBytes())));
    QVERIFY(PackedState(std::vector<StateSegment>{}).unpack().empty());
}

QTEST_GUILESS_MAIN(TestSamples)
#include "tst_samples.moc"
