#pragma once
// The driver's own figures sampled during a recording (DriverMemory records): what nvidia-smi shows,
// to compare with what the allocators explain.
#include <cstdint>

namespace vs {

struct DriverSample {
    int device = 0;
    int64_t timeUs = 0;
    uint64_t deviceUsed = 0;  // cuMemGetInfo: total - free, every process on the device; 0 = not sampled
    uint64_t processUsed = 0; // NVML: this process's used bytes (nvidia-smi's column); 0 = unknown
};

} // namespace vs
