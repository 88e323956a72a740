#pragma once
// The layout of PyTorch memory_viz's "Active Memory Timeline": every live allocation a band stacked
// over time. Bands stack in allocation order (a new one lands on top); when one is freed, those
// above it slide down by its size. As in memory_viz, only `maxBands` allocations get a band of
// their own: the ones holding the most memory over time (bytes x lifetime, so the long-lived
// structure and the leaks rather than one step's many equal activations, which memory_viz's
// largest-size rule picks arbitrarily among); the rest are one "summarized" band on top of them,
// whose top edge is the allocated series itself, so the stack's height at any moment is exactly
// allocated().
//
// Computed once per device off the GUI thread; immutable. A band's vertical offset only changes
// when a band below it is freed, so it is stored as a short list of steps (offset after an event),
// and the total number of steps is bounded (`maxSteps`: fewer bands are kept when it would exceed it).
#include "analysis/replay/Replay.h"
#include "model/DeviceTrace.h"

#include <atomic>
#include <optional>
#include <span>
#include <vector>

namespace vs {

struct AllocationBand {
    uint32_t alloc = 0;       // the alloc event
    uint32_t free = kNoEvent; // the event that ended it (allocated() drops); kNoEvent: alive at the end
    uint64_t bytes = 0;       // the whole block, as allocated() counts it
    StackId stack;
    uint32_t firstStep = 0, stepCount = 0; // into AllocationBands::steps(); the first is at `alloc`
    bool aliveAfter(uint32_t event) const { return alloc <= event && (free == kNoEvent || event < free); }
};

struct BandStep {
    uint32_t event;  // the offset holds after this event
    uint64_t offset; // bytes from the bottom of the stack to the band's lower edge
};

class AllocationBands {
  public:
    struct Options {
        size_t maxBands = 15000;      // memory_viz's default max_entries
        size_t maxSteps = 20'000'000; // bounds memory (16 B each) whatever the trace
    };
    static AllocationBands build(const DeviceTrace& trace, const ReplayResult& replay, const Options& options,
                                 const std::atomic<bool>* cancel = nullptr);
    static AllocationBands build(const DeviceTrace& trace, const ReplayResult& replay) {
        return build(trace, replay, Options{});
    }

    // Bands in allocation order.
    const std::vector<AllocationBand>& bands() const { return bands_; }
    std::span<const BandStep> steps(const AllocationBand& b) const {
        return {steps_.data() + b.firstStep, b.stepCount};
    }
    // The band's lower edge after `event` (the band must be alive then).
    uint64_t offsetAfter(const AllocationBand& b, uint32_t event) const;
    // Bytes of the bands alive after `event` (below the summarized band); UINT32_MAX: before event 0.
    uint64_t bandBytesAfter(uint32_t event) const;
    // The band under a point: alive after `event`, its span holding `bytes` from the bottom.
    std::optional<size_t> hit(uint32_t event, double bytes) const;
    size_t allocationCount() const { return allocations_; } // all allocations, drawn or summarized
    size_t summarizedCount() const { return allocations_ - bands_.size(); }
    size_t stepCount() const { return steps_.size(); }

  private:
    static std::vector<BandStep> totals(const std::vector<AllocationBand>& bands);
    std::vector<AllocationBand> bands_;
    std::vector<BandStep> steps_;
    std::vector<BandStep> bandBytes_; // the bands' total after each change (event, bytes)
    size_t allocations_ = 0;
};

} // namespace vs
