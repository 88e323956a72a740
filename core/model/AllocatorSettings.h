#pragma once
// The caching allocator's configuration as recorded in the snapshot (`allocator_settings`).
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vs {

struct AllocatorSettings {
    bool present = false;
    bool expandableSegments = false;
    uint64_t maxSplitSize = UINT64_MAX;         // -1 in the snapshot means unlimited
    uint64_t maxNonSplitRounding = 20ull << 20; // not in 2.11 snapshots; PyTorch's default
    double garbageCollectionThreshold = 0;
    std::array<uint32_t, 16> roundupPower2Divisions{}; // per power-of-two MiB interval; 0 = off
    std::string allocConf;                             // PYTORCH_CUDA_ALLOC_CONF as recorded
    uint64_t traceMaxEntries = 0; // trace_alloc_max_entries: the ring buffer's size; 0 when not recorded
    std::vector<std::pair<std::string, std::string>> raw; // every key, printed, for display
};

} // namespace vs
