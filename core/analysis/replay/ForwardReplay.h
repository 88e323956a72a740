#pragma once
// The forward replay as a resumable pass: it keeps the allocator state, the next checkpoint and the
// running peak, so that events appended to a trace (a live session) extend a ReplayResult in O(new
// events) and leave it equal to a one-shot pass over the longer trace.
#include "analysis/replay/AllocatorState.h"
#include "analysis/replay/Replay.h"

#include <atomic>
#include <span>

namespace vs {

class ForwardReplay {
  public:
    ForwardReplay(AllocatorState start, uint32_t checkpointEvery = Replay::kCheckpointEvery);

    // Replays events [applied(), trace.eventCount()) and appends their series, block sizes and
    // checkpoints to `out`, which must hold exactly the first applied() events' results (the first
    // call also sets `out.initial`). `strict`: stop at the first event that contradicts the state
    // and return false (the optimistic attempt of a one-shot replay); otherwise count it. Throws
    // std::overflow_error naming the event where a total passes 2^63 bytes.
    bool extend(const DeviceTrace& trace, std::span<const uint64_t> streams, ReplayResult& out, bool strict,
                const std::atomic<bool>* cancel = nullptr);

    size_t applied() const { return applied_; }
    const AllocatorState& state() const { return st_; }

  private:
    bool extendChecked(const DeviceTrace& trace, std::span<const uint64_t> streams, ReplayResult& out,
                       bool strict, const std::atomic<bool>* cancel);
    void checkpoint(size_t i, ReplayResult& out);

    AllocatorState st_;
    uint32_t every_;
    size_t applied_ = 0;
    size_t nextCheckpoint_ = 0;
};

} // namespace vs
