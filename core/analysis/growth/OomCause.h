#pragma once
// Why a recorded run ran out of memory: the figures at the failed request (what PyTorch's own error
// message prints, and what it does not: the largest free block, the memory outside PyTorch) and the
// cause, decided from how the caching allocator serves a request:
//   outside_pytorch the device's capacity is known and memory PyTorch never reserved (another
//                   process, a CUDA library, a raw cudaMalloc) holds a quarter of it or more, and
//                   more than PyTorch reserves;
//   leak            blocks kept steadily across training steps up to the failure (a growth finding),
//                   so steadily that the free memory in one piece would not have held one more step;
//   accumulation    the same within one phase: an evaluation or epoch collecting its outputs (an
//                   evaluation's passes keeping blocks of one stack count even without a finding);
//   fragmentation   the free bytes inside the reserve and on the device would hold the request, but
//                   no free block is large enough (and the device has no room for a new segment);
//   working_set     none of these: what the step itself needs does not fit.
// Decided in that order (OomCause.cpp says why).
#include "analysis/CaptureAnalysis.h"
#include "analysis/categories/LineHolders.h"
#include "analysis/growth/GrowthRegions.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

enum class OomCause : uint8_t { Leak, Accumulation, Fragmentation, WorkingSet, OutsidePytorch };
std::string_view oomCauseName(OomCause c);  // "leak", "accumulation", "fragmentation", ...
std::string_view oomCauseWords(OomCause c); // the same for a sentence: "working set", ...

struct OomFacts {
    uint32_t event = 0;
    uint64_t request = 0;    // bytes asked for (rounded as the allocator rounds)
    uint64_t deviceFree = 0; // free on the device then (cudaMemGetInfo, from the OOM entry)
    int64_t allocated = 0, reserved = 0;
    uint64_t largestFree = 0; // the largest free block the request could have used (its stream and pool)
    uint64_t capacity = 0;    // the device's memory when the capture names it; 0 unknown
    int64_t reservedFree() const { return reserved - allocated; }
    // The device had room for the request, so the allocator's own limit refused it
    // (torch.cuda.set_per_process_memory_fraction): no more than the reserve was usable.
    bool capped() const { return deviceFree >= request; }
    uint64_t usableDeviceFree() const { return capped() ? 0 : deviceFree; }
    // memory on the device PyTorch did not reserve; -1 when the capacity is unknown
    int64_t outside() const { return capacity ? int64_t(capacity) - reserved - int64_t(deviceFree) : -1; }
    OomCause cause = OomCause::WorkingSet;
    std::string decidedBy;                // what decided the cause, in words with numbers
    const GrowthRegion* growth = nullptr; // the finding kept up to the failure (leak, accumulation)
    // What grew up to the failure (the finding's, or what an evaluation kept across its passes when
    // the failure cut it short before any release marked it): bytes, per step, and where made
    uint64_t grownBytes = 0, grownPerStep = 0;
    StackId grownAt;
    int64_t stepBytes = 0; // alive at the failure and made since the step began
    // The batch size the program marked before the failure (vramscope.mark("batch_size", n)); 0: none.
    // With it, what the failing step needed per sample at least ((made + asked) / batch) and the
    // largest batch that the memory it could use (made + free) would then hold.
    int64_t batch = 0;
    uint64_t perSampleAtLeast = 0, batchAtMost = 0;
    std::vector<LineHolder> holders; // alive at the failure, by the user's line
    std::string whatIf; // for fragmentation, what the simulator says of other settings (sim/OomWhatIf.h)
};

OomFacts oomFacts(const CaptureAnalysis& a, size_t device, uint32_t oom, const GrowthRegions& growth);

} // namespace vs
