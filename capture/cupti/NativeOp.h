#pragma once
// One device-memory operation as the CUPTI agent's callbacks hand it to the writer thread: the
// allocator action it becomes in the .vscap file, and the raw return addresses of its stack.
#include "model/Action.h"

#include <chrono>
#include <cstdint>

namespace vs::cupti {

constexpr int kMaxFrames = 32;

// The recording's clock: Unix epoch microseconds, as in every .vscap file.
inline int64_t nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

struct NativeOp {
    int64_t timeUs = 0;
    uint64_t addr = 0, size = 0, stream = 0;
    Action action = Action::Unknown;
    uint32_t poolCorrelation = 0; // on the op whose pool sample updates the pool (SegmentAlloc/Free)
    int device = 0;               // the ordinal of the calling context's device
    int depth = 0;
    void* pcs[kMaxFrames];
};

} // namespace vs::cupti
