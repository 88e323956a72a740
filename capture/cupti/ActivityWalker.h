#pragma once
// Walks a completed CUPTI activity buffer (cuptiActivityGetNextRecord) and hands the records that
// tell a memory pool's size to the recorder: MEMORY2 records of pool allocations and releases
// (matched to the driver callbacks by correlation id) and MEMORY_POOL trims and destructions.
#include "NativeRecorder.h"

#include <cstddef>
#include <cstdint>

namespace vs::cupti {

struct ActivityCounts {
    uint64_t records = 0;     // all records in the buffer
    uint64_t poolSamples = 0; // MEMORY2 records from a local pool
    uint64_t poolChanges = 0; // MEMORY_POOL trims and destructions
};

// `clockOffsetUs` turns CUPTI timestamps (ns) into the recorder's clock: us = ns / 1000 + offset.
ActivityCounts walkActivityBuffer(uint8_t* buffer, size_t validSize, int64_t clockOffsetUs,
                                  PoolSink& recorder);

} // namespace vs::cupti
