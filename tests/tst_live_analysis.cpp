// The incremental live path (core/load/LiveCapture, core/analysis/LiveAnalysis): recorded streams
// fed chunk by chunk, in awkward pieces, must give after EVERY chunk exactly what a one-shot load of
// the same bytes gives (series, event counts, the state at the end, the summary, the leak kind), and
// a snapshot handed out must never change while it is held.
#include "TestData.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/replay/ColumnRegrow.h"
#include "analysis/replay/TimelineLod.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "load/LiveCapture.h"

#include <QDir>
#include <QtTest>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

using namespace vs;

namespace {

constexpr uint32_t kSpacing = 256; // small checkpoint spacing: many checkpoints to compare

std::vector<size_t> chunkEnds(const std::string& s) {
    std::vector<size_t> ends;
    size_t pos = vscap::kHeaderSize;
    while (pos + vscap::kChunkHeaderSize <= s.size()) {
        uint32_t stored;
        std::memcpy(&stored, s.data() + pos + 8, 4);
        pos += vscap::kChunkHeaderSize + stored;
        if (pos <= s.size()) ends.push_back(pos);
    }
    return ends;
}

std::span<const uint8_t> bytesOf(const std::string& s, size_t from, size_t to) {
    return {reinterpret_cast<const uint8_t*>(s.data()) + from, to - from};
}

bool sameSegments(const std::vector<StateSegment>& a, const std::vector<StateSegment>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].address != b[i].address || a[i].size != b[i].size || a[i].stream != b[i].stream ||
            a[i].expandable != b[i].expandable || a[i].blocks != b[i].blocks)
            return false;
    return true;
}

// Everything the views and the CLI read, compared between the live snapshot and the one-shot load.
void compare(const CaptureAnalysis& live, const CaptureAnalysis& oneShot, bool diagnose) {
    QCOMPARE(live.deviceCount(), oneShot.deviceCount());
    QCOMPARE(live.originUs(), oneShot.originUs());
    for (size_t d = 0; d < live.deviceCount(); ++d) {
        const DeviceTrace &lt = live.trace(d), &ot = oneShot.trace(d);
        QCOMPARE(lt.eventCount(), ot.eventCount());
        QVERIFY(lt.timeUs == ot.timeUs && lt.addr == ot.addr && lt.size == ot.size);
        QVERIFY(lt.action == ot.action && lt.stack == ot.stack && lt.stream == ot.stream);
        QCOMPARE(lt.hasFinalSnapshot, ot.hasFinalSnapshot);
        const ReplayResult &lr = live.replay(d), &orr = oneShot.replay(d);
        QVERIFY(lr.allocated == orr.allocated);
        QVERIFY(lr.active == orr.active);
        QVERIFY(lr.reserved == orr.reserved);
        QVERIFY(lr.blockSizeExceptions == orr.blockSizeExceptions);
        QCOMPARE(lr.allocEvents, orr.allocEvents);
        if (!lt.hasFinalSnapshot) { // the live replay's checkpoints, against a one-shot one of the same
                                    // spacing
            const auto want = Replay::run(ot, oneShot.capture().streams, oneShot.rules(), nullptr, kSpacing);
            QCOMPARE(lr.checkpoints.size(), want.checkpoints.size());
            for (size_t i = 0; i < lr.checkpoints.size(); ++i) {
                QCOMPARE(lr.checkpoints[i].event, want.checkpoints[i].event);
                QVERIFY(sameSegments(lr.checkpoints[i].state.unpack(), want.checkpoints[i].state.unpack()));
            }
        }
        QVERIFY(lr.peak == orr.peak && lr.final == orr.final && lr.initial == orr.initial);
        QCOMPARE(lr.inconsistencies, orr.inconsistencies);
        QVERIFY(sameSegments(live.stateAt(d, INT64_MAX), oneShot.stateAt(d, INT64_MAX)));
        const DeviceSummary ls = live.summary(d), os = oneShot.summary(d);
        QVERIFY(ls.final == os.final && ls.peak == os.peak);
        QCOMPARE(ls.segments, os.segments);
        if (diagnose) QCOMPARE(int(diagnoseLeaks(live, d).kind), int(diagnoseLeaks(oneShot, d).kind));
    }
    QCOMPARE(live.capture().stacks.size(), oneShot.capture().stacks.size());
    QCOMPARE(live.capture().annotations.size(), oneShot.capture().annotations.size());
}

std::shared_ptr<const CaptureAnalysis> oneShot(const std::string& bytes, size_t end) {
    try {
        return CaptureAnalysis::analyse(loadVscapBytes(bytesOf(bytes, 0, end)), {});
    } catch (const LoadError&) { // no device yet
        return nullptr;
    }
}

std::string readAll(const QString& path) {
    const auto v = test::readFile(path.toStdString());
    return {v.begin(), v.end()};
}

} // namespace

class TestLiveAnalysis : public QObject {
    Q_OBJECT
  private slots:
    void equalsOneShotAfterEveryChunk_data();
    void equalsOneShotAfterEveryChunk();
    void heldSnapshotsNeverChange();
    void lodExtendsLikeARebuild();
    void columnsNeverReallocateWhileAppending();
};

void TestLiveAnalysis::equalsOneShotAfterEveryChunk_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("chunkBytes"); // 0: the recorded file as it is; else re-encoded
    const QDir root(test::samplesDir() + "/..");
    for (const char* dir : {"real", "cuda"})
        for (const QString& f : QDir(root.filePath(dir)).entryList({"*.vscap"}, QDir::Files))
            QTest::newRow(qPrintable(QString("%1/%2").arg(dir, f)))
                << root.filePath(QString(dir) + "/" + f) << 0;
    // Snapshots re-encoded in small chunks: many chunks, settings first, the block list at the end.
    for (const char* name : {"leak_list", "clean_loop", "expandable", "side_stream", "leak_cut"})
        QTest::newRow(name) << QString::fromStdString(test::samplePath(name)) << 300;
}

void TestLiveAnalysis::equalsOneShotAfterEveryChunk() {
    QFETCH(QString, path);
    QFETCH(int, chunkBytes);
    std::string bytes;
    if (chunkBytes) {
        vscap::Writer::Options o;
        o.chunkBytes = size_t(chunkBytes), o.eventsPerRecord = 64;
        bytes = encodeVscap(*loadCaptureFile(path.toStdString(), {}), o);
    } else {
        bytes = readAll(path);
    }
    const auto ends = chunkEnds(bytes);
    QVERIFY(!ends.empty());
    LiveCapture live(kSpacing);
    size_t fed = 0, compared = 0, incremental = 0;
    for (size_t k = 0; k < ends.size(); ++k) {
        // Two pieces per chunk, split inside it: the decoder must keep an incomplete chunk.
        const size_t mid = fed + (ends[k] - fed) / 3;
        live.append(bytesOf(bytes, fed, mid));
        const auto got = live.append(bytesOf(bytes, mid, ends[k]));
        fed = ends[k];
        incremental += got && live.analysis().incremental();
        const auto want = oneShot(bytes, fed);
        QCOMPARE(bool(got), bool(want));
        if (!got) continue;
        // Diagnosis is the slow part: every chunk on small streams, every 8th and the last on long ones.
        const bool diagnose = ends.size() < 64 || k % 8 == 0 || k + 1 == ends.size();
        compare(*got, *want, diagnose);
        if (QTest::currentTestFailed()) qWarning("after chunk %zu of %zu", k + 1, ends.size());
        ++compared;
    }
    QVERIFY(compared > 0);
    if (compared >= 3) QVERIFY(incremental > 0); // the appending path was the one compared
    qInfo("%zu chunks, %zu compared, %zu of them before the final block list", ends.size(), compared,
          incremental);
}

// A snapshot is copy-on-write by recycling: held ones never change, released ones are reused (so a
// session keeps two or three, not one per refresh), and a reader on another thread sees a stable
// snapshot while the next one is built.
void TestLiveAnalysis::heldSnapshotsNeverChange() {
    vscap::Writer::Options o;
    o.chunkBytes = 300, o.eventsPerRecord = 64;
    const std::string bytes = encodeVscap(*loadCaptureFile(test::samplePath("leak_list"), {}), o);
    const auto ends = chunkEnds(bytes);
    struct Held {
        std::shared_ptr<const CaptureAnalysis> a;
        size_t events;
        int64_t sum;
    };
    auto sumOf = [](const CaptureAnalysis& a) {
        int64_t s = 0;
        for (int64_t v : a.replay(0).allocated) s += v;
        return s + int64_t(a.trace(0).timeUs.size());
    };
    std::vector<Held> held;
    LiveCapture keepAll;
    size_t fed = 0;
    for (size_t end : ends) {
        if (auto a = keepAll.append(bytesOf(bytes, fed, end)))
            held.push_back({a, a->trace(0).eventCount(), sumOf(*a)});
        fed = end;
    }
    QVERIFY(held.size() > 10);
    for (const Held& h : held) {
        QCOMPARE(h.a->trace(0).eventCount(), h.events);
        QCOMPARE(sumOf(*h.a), h.sum);
    }
    // Released at once (as the GUI does when the next one arrives): two snapshots alternate.
    LiveCapture recycle;
    std::mutex m;
    std::shared_ptr<const CaptureAnalysis> shown;
    std::atomic<bool> done = false, stable = true;
    std::thread reader([&] {
        while (!done) {
            std::shared_ptr<const CaptureAnalysis> a;
            {
                std::lock_guard lock(m);
                a = shown;
            }
            if (a && sumOf(*a) != sumOf(*a)) stable = false;
        }
    });
    fed = 0;
    for (size_t end : ends) {
        auto a = recycle.append(bytesOf(bytes, fed, end));
        fed = end;
        std::lock_guard lock(m);
        shown = std::move(a);
    }
    done = true;
    reader.join();
    QVERIFY(stable);
    QVERIFY(recycle.analysis().poolSize() <= 3);
    compare(*shown, *oneShot(bytes, bytes.size()), true);
}

void TestLiveAnalysis::lodExtendsLikeARebuild() {
    std::vector<int64_t> times, values;
    uint64_t x = 12345;
    for (int i = 0; i < 70000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        times.push_back(i * 10);
        values.push_back(int64_t(x >> 40) - (1 << 23));
    }
    const std::span<const int64_t> t(times), v(values);
    CompactSeries growing, growingTimes; // new objects at every step, as a live session's snapshots alternate
    TimelineLod grown(growingTimes, growing, 7, 0);
    std::vector<std::pair<CompactSeries, CompactSeries>> kept;
    kept.reserve(16); // the lod points at the latest
    for (size_t n : {1, 15, 16, 17, 255, 256, 4097, 65536, 65537, 70000}) {
        while (growing.size() < n)
            growing.push_back(v[growing.size()]), growingTimes.push_back(t[growingTimes.size()]);
        const auto& now = kept.emplace_back(growingTimes, growing);
        grown.extend(now.first, now.second);
        const CompactSeries freshTimes(t.first(n)), freshValues(v.first(n));
        const TimelineLod fresh(freshTimes, freshValues, 7, 0);
        for (size_t a = 0; a < n; a += 1 + a / 3)
            for (size_t b : {a + 1, (a + n) / 2 + 1, n}) {
                if (b <= a || b > n) continue;
                QCOMPARE(grown.range(a, b).min, fresh.range(a, b).min);
                QCOMPARE(grown.range(a, b).max, fresh.range(a, b).max);
            }
        const auto q1 = grown.band(0, double(n) * 1e-5, 300), q2 = fresh.band(0, double(n) * 1e-5, 300);
        QVERIFY(q1.lo == q2.lo && q1.hi == q2.hi && q1.t == q2.t);
    }
}

// Past its small sizes a vector column never reallocates (a copy of everything at once) while a
// refresh appends: ColumnRegrow made room beforehand, a slice at a time, and the values stay the
// same. (The compact columns and series grow by chunks and never move.)
void TestLiveAnalysis::columnsNeverReallocateWhileAppending() {
    DeviceTrace t;
    ReplayResult r;
    ColumnRegrow grow;
    std::vector<StackId> want;
    for (int step = 0; step < 400; ++step) {
        constexpr size_t kIncoming = 5000;
        grow.prepare(t, r, kIncoming);
        const auto* before = t.stack.data();
        const size_t cap = t.stack.capacity();
        for (size_t i = 0; i < kIncoming; ++i) {
            const auto v = StackId(uint32_t(want.size() * 7 + 3));
            t.timeUs.push_back(int64_t(want.size())), t.stack.push_back(v),
                r.allocated.push_back(-int64_t(v.value));
            want.push_back(v);
        }
        if (cap >= (1 << 16)) QVERIFY2(t.stack.data() == before, "reallocated while appending");
    }
    QVERIFY(t.stack == want);
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(r.allocated[i], -int64_t(want[i].value));
    QVERIFY(t.stack.capacity() >= want.size());
}

QTEST_GUILESS_MAIN(TestLiveAnalysis)
#include "tst_live_analysis.moc"
