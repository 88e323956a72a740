#pragma once
// What the allocator simulator replays: a capture's request stream (not the recorded allocator's
// answers), taken once from a device's trace and shared by every configuration simulated.
//
// Allocations and frees are identified by request (alloc) id, not by address, because another
// configuration puts them elsewhere. The recorded segment runs become requests only where the
// program asked for them: a run of segment frees outside any malloc is an empty_cache(); one inside a
// malloc that a full flush explains (release_cached_blocks before a retry) is kept as a flush too;
// partial releases inside a malloc (garbage collection, oversize blocks) are left to the simulator's
// own policy. The recorded addresses of new segments are kept as hints so that a simulation under
// the recorded settings takes the same addresses (best fit breaks ties by address).
#include "analysis/replay/Replay.h"
#include "model/AllocatorSettings.h"
#include "model/DeviceTrace.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace vs {

struct SimRequest {
    enum class Kind : uint8_t { Alloc, FreeRequested, FreeCompleted, EmptyCache, Oom };
    Kind kind = Kind::Alloc;
    uint32_t event = 0;    // the trace event this request is (for EmptyCache: the run's last event)
    uint32_t id = 0;       // allocation id (Alloc, Free*)
    uint64_t size = 0;     // requested bytes (Alloc, Oom)
    uint64_t stream = 0;   // raw cudaStream_t
    uint64_t hintAddr = 0; // the address the recorded run gave a new segment for this request; 0 if none
    uint64_t hintSize = 0;
};

struct SimInput {
    std::vector<SimRequest> requests;
    // The allocator's state before the first event when the recording started mid-run (blocks that
    // predate it keep ids 0..baselineIds-1, in `initialIds`, parallel to the blocks of initialState).
    std::vector<StateSegment> initialState;
    std::vector<std::vector<uint32_t>> initialIds;
    uint32_t idCount = 0;
    bool startsMidRun = false;
    uint32_t unmatchedFrees = 0; // frees of addresses the trace never handed out
    uint32_t recordedOoms = 0;
    uint32_t flushesInsideMalloc = 0; // release_cached_blocks runs before a retry, kept as flushes
    uint32_t partialReleases = 0;     // GC / oversize releases left to the simulator
    uint64_t recordedPeakReserved = 0;
    uint64_t recordedFinalReserved = 0;
    // The least device capacity (bytes the allocator may reserve) that explains the recorded run:
    // the recorded peak; and the most, when it ran out of memory: 0 when nothing bounds it.
    uint64_t capacityAtLeast = 0;
    uint64_t capacityBelow = 0;
    std::vector<uint64_t> streams; // distinct raw streams in first-use order
    // What the simulator's entry check (SimRange.h) needs, counted once here: the largest allocation
    // request (recorded out-of-memory requests beyond any size are left out: they are reproduced
    // without simulating) and everything the input asks for (the initial state's segments plus each
    // request with a segment's overhead), saturating at UINT64_MAX.
    uint64_t largestRequest = 0;
    uint32_t largestRequestEvent = 0;
    uint64_t demand = 0;
    uint32_t demandExceededAt = 0; // the event at which demand passed kMaxSimDemand

    static SimInput fromTrace(const DeviceTrace& trace, std::span<const uint64_t> streams,
                              const ReplayResult& replay, const AllocatorSettings& recorded);
};

} // namespace vs
