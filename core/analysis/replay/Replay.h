#pragma once
// Replays one device's trace through the allocator model and yields the exact allocated / active /
// reserved value after every event, the state before the first event (blocks and segments that
// predate the recording), and checkpoints that make the state at any moment cheap to rebuild.
//
// First a forward pass from an empty allocator is tried: if it never contradicts the trace and ends
// in exactly the snapshot's final block list, the recording saw everything. Otherwise the trace is
// undone backward from the final block list to recover the initial state, then replayed forward.
#include "analysis/replay/AllocatorRules.h"
#include "analysis/replay/PackedState.h"
#include "analysis/replay/StateTypes.h"
#include "model/DeviceTrace.h"
#include "util/CompactColumn.h"

#include <atomic>
#include <span>
#include <string>
#include <vector>

namespace vs {

struct Checkpoint {
    uint32_t event = 0; // the state before this event
    Totals totals;
    PackedState state;
};

struct ReplayResult {
    CompactSeries allocated, active, reserved; // after each event
    // The whole block an alloc event handed out is its request rounded by `rules`, except for the
    // events listed here, in event order, with their block's bytes: an unsplit remainder, or 0 when
    // no free block held the address. Listing only those keeps a few bytes per allocation where a
    // list of every block took 16 (0.8 GB at 100M events).
    std::vector<std::pair<uint32_t, uint64_t>> blockSizeExceptions;
    AllocatorRules rules;
    size_t allocEvents = 0;
    Totals initial; // before the first event
    std::vector<StateSegment> initialState;
    std::vector<Checkpoint> checkpoints;
    Totals peak;
    Totals final;
    bool recoveredBaseline = false; // the initial state came from the backward pass
    uint32_t inconsistencies = 0;   // events that contradicted the modelled state
    bool finalMatchesSnapshot = true;
    std::string finalMismatch;
    uint32_t baselineBlocks = 0; // active blocks alive before the first event
    uint64_t baselineBytes = 0;
    uint32_t pendingFreeAtStart = 0; // blocks whose free was requested before the first event

    size_t eventCount() const { return allocated.size(); }
    Totals after(size_t event) const { return {allocated[event], active[event], reserved[event]}; }
    uint64_t blockSizeOf(const DeviceTrace& t, uint32_t allocEvent) const; // 0 if it is not an alloc event
};

std::vector<StateSegment> toStateSegments(const std::vector<SnapshotSegment>& segments);

class Replay {
  public:
    static constexpr uint32_t kCheckpointEvery = 1 << 16; // at least; more when the state is large

    // `checkpointEvery`: the least number of events between checkpoints (tests use small values).
    static ReplayResult run(const DeviceTrace& trace, std::span<const uint64_t> streams,
                            const AllocatorRules& rules, const std::atomic<bool>* cancel = nullptr,
                            uint32_t checkpointEvery = kCheckpointEvery);
    // Applies event i of the trace to a state (forward); false when the trace contradicts it.
    // `blockSize` receives the whole block an alloc handed out.
    static bool apply(class AllocatorState& st, const DeviceTrace& trace, size_t i,
                      std::span<const uint64_t> streams, uint64_t* blockSize = nullptr);
    // The segments and blocks after the first `eventsApplied` events.
    static std::vector<StateSegment> stateAfter(const DeviceTrace& trace, std::span<const uint64_t> streams,
                                                const ReplayResult& r, const AllocatorRules& rules,
                                                size_t eventsApplied);
};

} // namespace vs
