#pragma once
// One allocator configuration to simulate: the PYTORCH_CUDA_ALLOC_CONF keys that change where memory
// goes (c10/cuda/CUDAAllocatorConfig), plus the memory fraction a program may set.
#include "model/AllocatorSettings.h"

#include <array>
#include <cstdint>
#include <string>

namespace vs {

struct SimConfig {
    enum class Backend : uint8_t { Native, CudaMallocAsync };
    Backend backend = Backend::Native;
    bool expandableSegments = false;
    uint64_t maxSplitSize = UINT64_MAX;
    uint64_t maxNonSplitRounding = 20ull << 20;
    double garbageCollectionThreshold = 0;             // acts only with a memory fraction, as in PyTorch
    std::array<uint32_t, 16> roundupPower2Divisions{}; // per power-of-two MiB interval; 0 = off
    double memoryFraction = 0;                         // torch.cuda.set_per_process_memory_fraction; 0 = none

    // The settings a capture recorded (allocator_settings); the fraction is never recorded.
    static SimConfig fromSettings(const AllocatorSettings& s);
    // Applies "key:value,key:value" on top of this configuration. Throws std::invalid_argument with
    // a message naming the key for an unknown key or a malformed value.
    SimConfig with(const std::string& conf) const;
    // The keys that differ from PyTorch's defaults, as PYTORCH_CUDA_ALLOC_CONF would spell them.
    std::string toString() const;
    bool operator==(const SimConfig&) const = default;
};

} // namespace vs
