// The block map's layout: segments to scale on a wrapped strip, and hit-testing that returns the
// right segment and block at several zoom levels.
#include "analysis/replay/BlockLayout.h"

#include <QtTest>

using namespace vs;

class TestBlockLayout : public QObject {
    Q_OBJECT
  private slots:
    void hitTestAtSeveralZooms();
    void fitUsesTheRows();
};

namespace {
std::vector<StateSegment> twoSegments() {
    StateSegment a{0x1000000, 4096, 0, false, true, {}};
    a.blocks = {{0x1000000, 1024, 1000, BlockState::ActiveAllocated, 3},
                {0x1000400, 2048, 0, BlockState::Inactive, kNoEvent},
                {0x1000c00, 1024, 512, BlockState::ActivePendingFree, 5}};
    StateSegment b{0x2000000, 8192, 0, false, false, {}};
    b.blocks = {{0x2000000, 8192, 8000, BlockState::ActiveAllocated, 9}};
    return {a, b};
}
} // namespace

void TestBlockLayout::hitTestAtSeveralZooms() {
    const auto segs = twoSegments();
    for (double bpp : {16.0, 64.0, 256.0}) {
        const int width = 100;
        const BlockLayout l(segs, bpp, width, 4);
        auto at = [&](size_t seg, uint64_t offset) {
            const double p = l.pixelOf(seg, offset);
            return l.hitTest(int(p) % width, int(p) / width);
        };
        QCOMPARE(at(0, 0).segment, 0);
        QCOMPARE(at(0, 0).block, 0);
        QCOMPARE(at(0, 1024 + bpp).block, 1);
        QCOMPARE(at(0, 3072 + bpp / 2).block, 2);
        QCOMPARE(at(1, 4000).segment, 1);
        QCOMPARE(at(1, 4000).block, 0);
        // the gap right after the first segment belongs to no segment
        const double gap = l.pixelOf(0, 4096) + 2;
        if (4096 / bpp >= 1) QCOMPARE(l.hitTest(int(gap) % width, int(gap) / width).segment, -1);
        QCOMPARE(l.hitTest(-1, 0).segment, -1);
        QCOMPARE(l.hitTest(5, 1000).segment, -1); // far past the end
    }
}

void TestBlockLayout::fitUsesTheRows() {
    const auto segs = twoSegments();
    const double bpp = BlockLayout::fitBytesPerPixel(segs, 50, 4);
    const BlockLayout l(segs, bpp, 50, 4);
    QVERIFY(l.rows() <= 4);
    QVERIFY(l.rows() >= 3); // and it is not needlessly small
}

QTEST_GUILESS_MAIN(TestBlockLayout)
#include "tst_block_layout.moc"
