#pragma once
// Everything on a device besides PyTorch's caching allocator, from a recording that holds both
// levels (`record --native`: Capture::cudaLevel, the CUPTI agent's driver allocations): each driver
// allocation is matched to the PyTorch segment it became (same address and size, made within a
// second of it) and counted once, as PyTorch's; the rest is named by the library whose code asked
// for it (NativeOwner: cuBLAS, cuBLASLt, cuDNN, NCCL, CuPy, Triton, or the program / an extension).
// The driver's own figure (DriverMemory samples) minus both is the gap: the CUDA context, module
// images and whatever the driver keeps, which no allocation explains.
#include "analysis/replay/Replay.h"
#include "analysis/stacks/NativeOwner.h"
#include "model/Capture.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vs {

struct OwnerSeries {
    std::string name;                                // "cuBLAS", "program or extension", ...
    std::vector<std::pair<int64_t, int64_t>> points; // (time µs, bytes after it)
    int64_t peak = 0, final = 0;
    int64_t at(int64_t timeUs) const;
};

struct GapSample {
    int64_t timeUs = 0;
    int64_t driverUsed = 0; // NVML's figure for the process, else cuMemGetInfo's device-wide one
    bool processFigure = false;
    int64_t explained = 0; // PyTorch's reserved + everything outside PyTorch, then
    int64_t gap() const { return driverUsed - explained; }
};

struct DeviceOutside {
    int device = 0;
    std::vector<OwnerSeries> owners; // outside PyTorch, by name; largest peak first
    OwnerSeries torchMatched;        // driver bytes matched to PyTorch segments (= reserved, checked)
    uint32_t matchedSegments = 0, unmatchedTorchSegments = 0; // the latter: PyTorch's own frames, no match
    std::vector<GapSample> gap;                               // at every driver sample of the device
    int64_t outsideAt(int64_t timeUs) const;
};

// `torchDevice` and `torchReplay`: the PyTorch level's trace and replay of the same ordinal (null when
// PyTorch never used that device). One entry per device of the CUDA level or with driver samples
// (without a CUDA level: no owners, and the gap holds everything outside PyTorch).
std::vector<DeviceOutside> outsideTorch(const Capture& c, const std::vector<const ReplayResult*>& replays);

} // namespace vs
