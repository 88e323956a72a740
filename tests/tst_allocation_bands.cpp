// The "Allocation bands" layout (memory_viz's Active Memory Timeline) on PyTorch's own snapshots:
// the bands alive at any moment tile the stack without gap or overlap, the stack plus the
// summarized band is exactly allocated(), the bands kept are the largest, and a point finds the
// allocation drawn there.
#include "TestData.h"

#include "analysis/composition/AllocationBands.h"
#include "analysis/replay/Lifetimes.h"
#include "load/OpenAnalysis.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace vs;

class TestAllocationBands : public QObject {
    Q_OBJECT

    // Every event (or every `stride`-th): the live bands sorted by offset start at 0, touch each
    // other and end at bandBytesAfter(); that plus the summarized rest is the replay's allocated.
    static void checkTiling(const CaptureAnalysis& a, const AllocationBands& bands, size_t stride) {
        const ReplayResult& r = a.replay(0);
        std::vector<std::pair<uint64_t, uint64_t>> live;
        for (uint32_t e = 0; e < r.eventCount(); e += uint32_t(stride)) {
            live.clear();
            for (const AllocationBand& b : bands.bands())
                if (b.aliveAfter(e)) live.emplace_back(bands.offsetAfter(b, e), b.bytes);
            std::sort(live.begin(), live.end());
            uint64_t top = 0;
            for (const auto& [offset, bytes] : live) {
                QCOMPARE(offset, top);
                top += bytes;
            }
            QCOMPARE(bands.bandBytesAfter(e), top);
            QVERIFY2(int64_t(top) <= r.allocated[e], qPrintable(QStringLiteral("event %1").arg(e)));
        }
    }

  private slots:
    void everyAllocationABand_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"leak_list", "mixed_sizes", "side_stream", "expandable", "clean_loop"})
            QTest::newRow(n) << QString::fromLatin1(n);
    }
    // With a band for every allocation, the stack is allocated() itself wherever nothing predates the
    // recording: nothing is left to summarize.
    void everyAllocationABand() {
        QFETCH(QString, name);
        const auto a = openAnalysis(test::samplePath(name));
        const ReplayResult& r = a->replay(0);
        AllocationBands::Options all;
        all.maxBands = SIZE_MAX;
        const AllocationBands bands = AllocationBands::build(a->trace(0), r, all);
        QCOMPARE(bands.bands().size(), pairAllocations(a->trace(0), r).size());
        QCOMPARE(bands.summarizedCount(), size_t(0));
        checkTiling(*a, bands, 1);
        if (r.baselineBlocks == 0 && r.pendingFreeAtStart == 0)
            for (uint32_t e = 0; e < r.eventCount(); ++e)
                QCOMPARE(int64_t(bands.bandBytesAfter(e)), r.allocated[e]);
    }

    // The bands kept are the allocations holding the most memory over time (bytes x lifetime).
    void largestAreKept() {
        const auto a = openAnalysis(test::samplePath(QStringLiteral("mixed_sizes")));
        const DeviceTrace& t = a->trace(0);
        const auto all = pairAllocations(t, a->replay(0));
        AllocationBands::Options few;
        few.maxBands = 7;
        const AllocationBands bands = AllocationBands::build(t, a->replay(0), few);
        QCOMPARE(bands.bands().size(), size_t(7));
        QCOMPARE(bands.summarizedCount(), all.size() - 7);
        auto area = [&](uint64_t bytes, uint32_t alloc, uint32_t free) {
            const int64_t until = free == kNoEvent ? t.timeUs.back() : t.timeUs[free];
            return double(bytes) * double(until - t.timeUs[alloc] + 1);
        };
        std::vector<double> areas;
        for (const Allocation& x : all) areas.push_back(area(x.bytes, x.alloc, x.freeRequested));
        std::sort(areas.rbegin(), areas.rend());
        double smallestKept = INFINITY;
        for (const AllocationBand& b : bands.bands())
            smallestKept = std::min(smallestKept, area(b.bytes, b.alloc, b.free));
        QCOMPARE(smallestKept, areas[6]);
        QVERIFY(areas[6] >= areas[7]);
        QVERIFY(std::is_sorted(
            bands.bands().begin(), bands.bands().end(),
            [](const AllocationBand& x, const AllocationBand& y) { return x.alloc < y.alloc; }));
        checkTiling(*a, bands, 1);
    }

    // The step budget: fewer bands, never more steps than allowed, the layout still exact.
    void stepBudget() {
        const auto a = openAnalysis(test::samplePath(QStringLiteral("leak_list")));
        const AllocationBands full = AllocationBands::build(a->trace(0), a->replay(0));
        AllocationBands::Options tight;
        tight.maxSteps = full.stepCount() / 3;
        const AllocationBands bands = AllocationBands::build(a->trace(0), a->replay(0), tight);
        QVERIFY(bands.stepCount() <= tight.maxSteps);
        QVERIFY(bands.bands().size() < full.bands().size());
        checkTiling(*a, bands, 7);
    }

    // Hover: the middle of each live band finds it, above the bands finds none.
    void hitFindsTheBand() {
        const auto a = openAnalysis(test::samplePath(QStringLiteral("leak_list")));
        const AllocationBands bands = AllocationBands::build(a->trace(0), a->replay(0));
        size_t checked = 0;
        for (uint32_t e = 0; e < a->trace(0).eventCount(); e += 13) {
            for (size_t i = 0; i < bands.bands().size(); ++i) {
                const AllocationBand& b = bands.bands()[i];
                if (!b.aliveAfter(e)) continue;
                const double low = double(bands.offsetAfter(b, e));
                QCOMPARE(bands.hit(e, low + double(b.bytes) / 2), std::optional<size_t>(i));
                QCOMPARE(bands.hit(e, low), std::optional<size_t>(i)); // the lower edge belongs to it
                ++checked;
            }
            QCOMPARE(bands.hit(e, double(bands.bandBytesAfter(e)) + 0.5), std::nullopt);
        }
        QVERIFY(checked > 100);
    }
};

QTEST_GUILESS_MAIN(TestAllocationBands)
#include "tst_allocation_bands.moc"
