// The allocator model's building blocks: PyTorch's rounding and splitting rules, the flat hash map,
// and forward/backward operations of AllocatorState on hand-made traces.
#include "analysis/replay/AllocatorState.h"
#include "model/FlatMap.h"

#include <QtTest>

#include <random>
#include <unordered_map>

using namespace vs;

class TestAllocatorRules : public QObject {
    Q_OBJECT
  private slots:
    void roundSize();
    void roundupPower2Divisions();
    void splitRule();
    void flatMapMatchesUnorderedMap();
    void unsplitRemainderCountsAsAllocated();
    void mergeStaysInsideSegment();
    void undoRestoresTheStateBefore();
    void expandableMapJoinsAndUnmapSplits();
};

void TestAllocatorRules::roundSize() {
    AllocatorRules r;
    QCOMPARE(r.roundSize(1), uint64_t(512));
    QCOMPARE(r.roundSize(512), uint64_t(512));
    QCOMPARE(r.roundSize(513), uint64_t(1024));
    QCOMPARE(r.roundSize((3u << 20) + 5), uint64_t((3u << 20) + 512));
}

void TestAllocatorRules::roundupPower2Divisions() {
    AllocatorRules r;
    r.roundupPower2Divisions.fill(4);
    // 1.3 GiB rounds up to 1.5 GiB with 4 divisions (PyTorch's documented example)
    QCOMPARE(r.roundSize(uint64_t(1.3 * (1ull << 30))), uint64_t(3) << 29);
    QCOMPARE(r.roundSize(1ull << 30), 1ull << 30); // powers of two are unchanged
    QCOMPARE(r.roundSize(1200), uint64_t(1536));   // <= 512*d: plain 512 rounding
}

void TestAllocatorRules::splitRule() {
    AllocatorRules r;
    QVERIFY(r.shouldSplit(2 << 20, 512, true, false)); // small pool: any 512 B remainder
    QVERIFY(!r.shouldSplit(1024, 1024, true, false));
    QVERIFY(
        !r.shouldSplit((2 << 20) + (1 << 20), 2 << 20, false, false)); // large: remainder must exceed 1 MiB
    QVERIFY(r.shouldSplit((2 << 20) + (1 << 20) + 512, 2 << 20, false, false));
    QVERIFY(r.shouldSplit((2 << 20) + 512, 2 << 20, false, true)); // expandable: 512 B is enough
    r.maxSplitSize = 4 << 20;
    QVERIFY(!r.shouldSplit(40 << 20, 5 << 20, false, false)); // oversize blocks are never split
}

void TestAllocatorRules::flatMapMatchesUnorderedMap() {
    FlatMap m;
    std::unordered_map<uint64_t, uint32_t> ref;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200000; ++i) {
        const uint64_t k = (rng() % 5000) * 512; // clustered keys, like addresses
        switch (rng() % 3) {
        case 0:
            m.set(k, uint32_t(i)), ref[k] = uint32_t(i);
            break;
        case 1:
            m.erase(k), ref.erase(k);
            break;
        default: {
            auto it = ref.find(k);
            QCOMPARE(m.find(k), it == ref.end() ? FlatMap::kMissing : it->second);
        }
        }
    }
    QCOMPARE(m.size(), ref.size());
}

void TestAllocatorRules::unsplitRemainderCountsAsAllocated() {
    AllocatorState s{AllocatorRules{}};
    QVERIFY(s.segmentAlloc(1 << 30, 20 << 20, 0));
    uint64_t block = 0;
    QVERIFY(s.alloc(1 << 30, (19 << 20) + 1, 0, &block)); // remainder < 1 MiB: the whole 20 MiB is handed out
    QCOMPARE(block, uint64_t(20) << 20);
    QCOMPARE(s.totals().allocated, int64_t(20) << 20);
    QVERIFY(s.freeRequested(1 << 30));
    QCOMPARE(s.totals().allocated, int64_t(0));
    QCOMPARE(s.totals().active, int64_t(20) << 20);
    QVERIFY(s.freeCompleted(1 << 30));
    QCOMPARE(s.totals().active, int64_t(0));
    QCOMPARE(s.totals().reserved, int64_t(20) << 20);
}

void TestAllocatorRules::mergeStaysInsideSegment() {
    AllocatorState s{AllocatorRules{}};
    const uint64_t a = 1ull << 32, b = a + (2 << 20); // two small segments back to back in address space
    QVERIFY(s.segmentAlloc(a, 2 << 20, 0));
    QVERIFY(s.segmentAlloc(b, 2 << 20, 0));
    QVERIFY(s.alloc(b, 512, 1));
    QVERIFY(s.freeRequested(b) && s.freeCompleted(b));
    const auto segs = s.segments();
    QCOMPARE(segs.size(), size_t(2));
    QCOMPARE(segs[0].blocks.size(), size_t(1));
    QCOMPARE(segs[1].blocks.size(), size_t(1)); // merged back within its own segment only
    QVERIFY(s.segmentFree(b, 2 << 20));
    QCOMPARE(s.totals().reserved, int64_t(2) << 20);
}

void TestAllocatorRules::undoRestoresTheStateBefore() {
    AllocatorState s{AllocatorRules{}};
    const uint64_t seg = 1ull << 33;
    QVERIFY(s.segmentAlloc(seg, 2 << 20, 0));
    QVERIFY(s.alloc(seg, 1000, 0));
    const auto before = s.segments();
    QVERIFY(s.alloc(seg + 1024, 3000, 1));
    QVERIFY(s.freeRequested(seg + 1024));
    QVERIFY(s.freeCompleted(seg + 1024));
    s.enableContainmentIndex();
    QVERIFY(s.undoFreeCompleted(seg + 1024, 3000));
    QVERIFY(s.undoFreeRequested(seg + 1024));
    QVERIFY(s.undoAlloc(seg + 1024));
    const auto after = s.segments();
    QCOMPARE(after.size(), before.size());
    QCOMPARE(after[0].blocks.size(), before[0].blocks.size());
    for (size_t i = 0; i < after[0].blocks.size(); ++i) {
        QCOMPARE(after[0].blocks[i].address, before[0].blocks[i].address);
        QCOMPARE(after[0].blocks[i].size, before[0].blocks[i].size);
        QCOMPARE(after[0].blocks[i].state, before[0].blocks[i].state);
    }
    QVERIFY(!s.undoAlloc(seg + 1024)); // nothing allocated there any more: an inconsistency, not a crash
}

void TestAllocatorRules::expandableMapJoinsAndUnmapSplits() {
    AllocatorState s{AllocatorRules{}};
    const uint64_t base = 1ull << 35, page = 20 << 20;
    QVERIFY(s.map(base, page, 0));
    QVERIFY(s.map(base + 2 * page, page, 0));
    QCOMPARE(s.segments().size(), size_t(2));
    QVERIFY(s.map(base + page, page, 0)); // fills the hole: one range of three pages
    QCOMPARE(s.segments().size(), size_t(1));
    QCOMPARE(s.segments()[0].size, 3 * page);
    QVERIFY(s.alloc(base, 512, 0));
    uint64_t block = 0;
    QVERIFY(s.alloc(base + 512, (5 << 20) + 1, 1, &block));
    QCOMPARE(block, uint64_t((5 << 20) + 512)); // expandable: split at 512 B granularity
    QVERIFY(s.unmap(base + page, page));        // a hole in the middle again
    const auto segs = s.segments();
    QCOMPARE(segs.size(), size_t(2));
    QCOMPARE(segs[1].address, base + 2 * page);
    QCOMPARE(s.totals().reserved, int64_t(2 * page));
    QVERIFY(!s.unmap(base, page)); // still holds allocated blocks: refused
}

QTEST_GUILESS_MAIN(TestAllocatorRules)
#include "tst_allocator_rules.moc"
