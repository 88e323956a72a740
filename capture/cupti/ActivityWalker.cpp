#include "ActivityWalker.h"

#include <cupti.h>

namespace vs::cupti {
namespace {

void memory(const CUpti_ActivityMemory4& r, ActivityCounts& n, PoolSink& recorder) {
    if (r.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
        r.memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return;
    const bool local = r.memoryPoolConfig.memoryPoolType == CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    // Plain cuMemAlloc records add nothing to the callbacks. An imported pool has no size here, but
    // its operation waits for this record all the same: an unsized sample releases it.
    if (!local && !r.isAsync) return;
    recorder.poolSample(
        {r.correlationId, r.memoryPoolConfig.address, local ? r.memoryPoolConfig.pool.size : 0, local});
    ++n.poolSamples;
}

void pool(const CUpti_ActivityMemoryPool3& r, int64_t clockOffsetUs, ActivityCounts& n, PoolSink& recorder) {
    if (r.memoryPoolType != CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL) return;
    const int64_t t = int64_t(r.timestamp / 1000) + clockOffsetUs;
    switch (r.memoryPoolOperationType) {
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED:
        recorder.poolChanged({t, r.address, r.size});
        break;
    case CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED:
        recorder.poolChanged({t, r.address, 0});
        break;
    default: // created: empty until its first allocation says otherwise
        return;
    }
    ++n.poolChanges;
}

} // namespace

ActivityCounts walkActivityBuffer(uint8_t* buffer, size_t validSize, int64_t clockOffsetUs,
                                  PoolSink& recorder) {
    ActivityCounts n;
    CUpti_Activity* record = nullptr;
    while (validSize && cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        ++n.records;
        if (record->kind == CUPTI_ACTIVITY_KIND_MEMORY2)
            memory(*reinterpret_cast<const CUpti_ActivityMemory4*>(record), n, recorder);
        else if (record->kind == CUPTI_ACTIVITY_KIND_MEMORY_POOL)
            pool(*reinterpret_cast<const CUpti_ActivityMemoryPool3*>(record), clockOffsetUs, n, recorder);
    }
    return n;
}

} // namespace vs::cupti
