// The CUPTI activity-record walker on synthetic buffers laid out as CUPTI fills them (records back to
// back, walked by CUPTI's own cuptiActivityGetNextRecord, which needs no GPU): pool allocations and
// releases become pool samples, trims and destructions pool changes, everything else is passed over;
// through the recorder the pool's size becomes the capture's reserved memory.
#include "ActivityWalker.h"
#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <cupti.h>

using namespace vs;

namespace {

constexpr uint64_t kPool = 0x7f7000000000;

// Records appended as CUPTI lays them out: each at 8-byte alignment, its struct's size.
struct Buffer {
    alignas(8) uint8_t bytes[1 << 14] = {};
    size_t used = 0;
    template <class R> void add(const R& r) {
        std::memcpy(bytes + used, &r, sizeof r);
        used += (sizeof r + 7) & ~size_t(7);
    }
};

CUpti_ActivityMemory4 memory(uint32_t corr, CUpti_ActivityMemoryOperationType op, uint64_t addr,
                             uint64_t bytes, CUpti_ActivityMemoryPoolType pool, uint64_t poolSize) {
    CUpti_ActivityMemory4 r{};
    r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    r.memoryOperationType = op;
    r.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    r.correlationId = corr;
    r.address = addr;
    r.bytes = bytes;
    r.isAsync = pool != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID;
    r.memoryPoolConfig.memoryPoolType = pool;
    r.memoryPoolConfig.address = kPool;
    r.memoryPoolConfig.pool.size = poolSize;
    return r;
}

CUpti_ActivityMemoryPool3 poolRecord(CUpti_ActivityMemoryPoolOperationType op, uint64_t size, uint64_t ns) {
    CUpti_ActivityMemoryPool3 r{};
    r.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
    r.memoryPoolOperationType = op;
    r.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    r.address = kPool;
    r.size = size;
    r.timestamp = ns;
    return r;
}

struct Collected : cupti::PoolSink {
    std::vector<cupti::PoolSample> samples;
    std::vector<cupti::PoolChange> changes;
    void poolSample(const cupti::PoolSample& s) override { samples.push_back(s); }
    void poolChanged(const cupti::PoolChange& c) override { changes.push_back(c); }
};

constexpr auto kAlloc = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
constexpr auto kRelease = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
constexpr auto kLocal = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;

} // namespace

class TestActivityWalker : public QObject {
    Q_OBJECT
  private slots:
    void recordsBecomeSamplesAndChanges();
    void emptyBufferWalksNothing();
    void poolSizeBecomesReserved();

  private:
    QTemporaryDir dir_;
};

void TestActivityWalker::recordsBecomeSamplesAndChanges() {
    Buffer b;
    b.add(memory(1, kAlloc, kPool, 4 << 20, kLocal, 32 << 20));
    b.add(
        memory(2, kAlloc, 0x7f8000000000, 1 << 20, CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID, 0)); // cuMemAlloc
    b.add(
        memory(3, kAlloc, 0x7f9000000000, 1 << 20, CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED, 77)); // no size
    b.add(poolRecord(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, 0, 1000));
    b.add(memory(4, kRelease, kPool, 4 << 20, kLocal, 32 << 20));
    CUpti_ActivityMemcpy6 copy{}; // another kind, of another size: walked past
    copy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    b.add(copy);
    b.add(poolRecord(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED, 2 << 20, 5'000'000));
    b.add(poolRecord(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED, 0, 9'000'000));

    Collected got;
    const auto n = cupti::walkActivityBuffer(b.bytes, b.used, 100, got);
    QCOMPARE(n.records, uint64_t(8));
    QCOMPARE(n.poolSamples, uint64_t(3));
    QCOMPARE(n.poolChanges, uint64_t(2));
    QCOMPARE(got.samples.size(), size_t(3));
    QCOMPARE(got.samples[0].correlation, uint32_t(1));
    QVERIFY(got.samples[0].sized);
    QCOMPARE(got.samples[1].correlation, uint32_t(3)); // imported: releases its operation, no size
    QVERIFY(!got.samples[1].sized);
    QCOMPARE(got.samples[2].correlation, uint32_t(4));
    QCOMPARE(got.samples[2].pool, kPool);
    QCOMPARE(got.samples[2].poolSize, uint64_t(32) << 20);
    QCOMPARE(got.changes.size(), size_t(2));
    QCOMPARE(got.changes[0].timeUs, int64_t(5000 + 100)); // ns -> us, plus the clock offset
    QCOMPARE(got.changes[0].poolSize, uint64_t(2) << 20);
    QCOMPARE(got.changes[1].poolSize, uint64_t(0)); // destroyed
}

void TestActivityWalker::emptyBufferWalksNothing() {
    Buffer b;
    Collected got;
    QCOMPARE(cupti::walkActivityBuffer(b.bytes, 0, 0, got).records, uint64_t(0));
    QCOMPARE(cupti::walkActivityBuffer(nullptr, 0, 0, got).records, uint64_t(0));
    QVERIFY(got.samples.empty() && got.changes.empty());
}

// The callbacks' operations plus the walker's records, as in the agent: reserved follows the pool.
void TestActivityWalker::poolSizeBecomesReserved() {
    const QString path = dir_.filePath("p.vscap");
    FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
    {
        cupti::NativeRecorder r(out);
        void* pcs[1] = {reinterpret_cast<void*>(&std::fopen)};
        r.allocated(kPool, 4 << 20, 9, pcs, 1, 1);
        r.allocated(kPool + (4 << 20), 4 << 20, 9, pcs, 1, 2);
        r.freed(kPool, 9, pcs, 1, 3);
        Buffer b;
        b.add(memory(1, kAlloc, kPool, 4 << 20, kLocal, 32 << 20));
        b.add(memory(2, kAlloc, kPool + (4 << 20), 4 << 20, kLocal, 32 << 20));
        b.add(memory(3, kRelease, kPool, 4 << 20, kLocal, 32 << 20));
        cupti::walkActivityBuffer(b.bytes, b.used, 0, r);
        r.close();
    }
    std::fclose(out);
    const auto a = openAnalysis(path.toStdString());
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    QCOMPARE(a->summary(0).final.reserved, int64_t(32) << 20);
    QCOMPARE(a->summary(0).final.allocated, int64_t(4) << 20);
    QCOMPARE(a->summary(0).peak.reserved, int64_t(32) << 20);
}

QTEST_GUILESS_MAIN(TestActivityWalker)
#include "tst_activity_walker.moc"
