#include "analysis/replay/Replay.h"

#include "analysis/replay/AllocatorState.h"
#include "analysis/replay/ForwardReplay.h"
#include "util/Cancelled.h"
#include "util/Format.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace vs {
namespace {

bool applyForward(AllocatorState& st, const DeviceTrace& t, size_t i, std::span<const uint64_t> streams,
                  uint64_t* blockSize = nullptr) {
    const uint64_t a = t.addr[i], n = t.size[i];
    switch (t.action[i]) {
    case Action::Alloc:
        return st.alloc(a, n, static_cast<uint32_t>(i), blockSize);
    case Action::FreeRequested:
        return st.freeRequested(a);
    case Action::FreeCompleted:
        return st.freeCompleted(a);
    case Action::SegmentAlloc:
        return st.segmentAlloc(a, n, streams[t.stream[i].value]);
    case Action::SegmentFree:
        return st.segmentFree(a, n);
    case Action::SegmentMap:
        return st.map(a, n, streams[t.stream[i].value]);
    case Action::SegmentUnmap:
        return st.unmap(a, n);
    default:
        return true;
    }
}

bool applyBackward(AllocatorState& st, const DeviceTrace& t, size_t i, std::span<const uint64_t> streams) {
    const uint64_t a = t.addr[i], n = t.size[i];
    switch (t.action[i]) {
    case Action::Alloc:
        return st.undoAlloc(a);
    case Action::FreeRequested:
        return st.undoFreeRequested(a);
    case Action::FreeCompleted:
        return st.undoFreeCompleted(a, n);
    case Action::SegmentAlloc:
        return st.undoSegmentAlloc(a, n);
    case Action::SegmentFree:
        return st.undoSegmentFree(a, n, streams[t.stream[i].value]);
    case Action::SegmentMap:
        return st.unmap(a, n);
    case Action::SegmentUnmap:
        return st.map(a, n, streams[t.stream[i].value]);
    default:
        return true;
    }
}

void checkCancel(const std::atomic<bool>* cancel, size_t i) {
    if (cancel && (i & 0xffff) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

using BlockKey = std::tuple<uint64_t, uint64_t, BlockState>;

std::vector<BlockKey> blockKeys(const std::vector<StateSegment>& segs) {
    std::vector<BlockKey> out;
    for (const auto& s : segs)
        for (const auto& b : s.blocks) out.emplace_back(b.address, b.size, b.state);
    std::sort(out.begin(), out.end());
    return out;
}

std::string describeMismatch(const std::vector<StateSegment>& got, const std::vector<StateSegment>& want) {
    auto g = blockKeys(got), w = blockKeys(want);
    if (g == w) return {};
    size_t i = 0;
    while (i < g.size() && i < w.size() && g[i] == w[i]) ++i;
    auto show = [](const std::vector<BlockKey>& v, size_t k) {
        if (k >= v.size()) return std::string("nothing");
        return "block at " + hexAddress(std::get<0>(v[k])) + " of " + std::to_string(std::get<1>(v[k])) +
               " bytes (" + std::string(blockStateName(std::get<2>(v[k]))) + ")";
    };
    return std::to_string(g.size()) + " blocks replayed, " + std::to_string(w.size()) +
           " in the snapshot; first difference: " + show(g, i) + " where the snapshot has " + show(w, i);
}

} // namespace

uint64_t ReplayResult::blockSizeOf(const DeviceTrace& t, uint32_t allocEvent) const {
    if (allocEvent >= t.eventCount() || t.action[allocEvent] != Action::Alloc) return 0;
    const auto& x = blockSizeExceptions;
    auto it = std::lower_bound(x.begin(), x.end(), std::make_pair(allocEvent, uint64_t{0}));
    return it != x.end() && it->first == allocEvent ? it->second : rules.roundSize(t.size[allocEvent]);
}

std::vector<StateSegment> toStateSegments(const std::vector<SnapshotSegment>& segments) {
    std::vector<StateSegment> out;
    out.reserve(segments.size());
    for (const auto& s : segments) {
        StateSegment g{s.address, s.totalSize, s.stream, s.expandable, s.smallPool, {}};
        for (const auto& b : s.blocks)
            g.blocks.push_back({b.address, b.size, b.requestedSize, b.state, kNoEvent});
        out.push_back(std::move(g));
    }
    return out;
}

// The state before the first event, by undoing the trace backward from the final block list;
// `problems` counts the events that contradict it.
static std::vector<StateSegment> undoTrace(const DeviceTrace& t, std::span<const uint64_t> streams,
                                           const AllocatorRules& rules,
                                           const std::vector<StateSegment>& finalState,
                                           const std::atomic<bool>* cancel, uint32_t& problems) {
    AllocatorState back = AllocatorState::fromSegments(finalState, rules);
    back.enableContainmentIndex();
    for (size_t i = t.eventCount(); i-- > 0;) {
        checkCancel(cancel, i);
        problems += !applyBackward(back, t, i, streams);
    }
    return back.segments();
}

// The state before the first event: known (a window cut from a longer capture), or recovered by
// undoing the trace backward from the final block list. Returns false when no baseline is needed
// (`r` then already holds the optimistic forward pass from an empty allocator).
static bool findInitialState(const DeviceTrace& t, std::span<const uint64_t> streams,
                             const AllocatorRules& rules, const std::vector<StateSegment>& finalState,
                             const std::atomic<bool>* cancel, uint32_t checkpointEvery, ReplayResult& r) {
    if (t.hasStartState) {
        r.initialState = toStateSegments(t.startSegments);
        return true;
    }
    ForwardReplay optimistic(AllocatorState(rules), checkpointEvery);
    if (optimistic.extend(t, streams, r, true, cancel) &&
        describeMismatch(optimistic.state().segments(), finalState).empty())
        return false; // the recording saw every block from an empty allocator: no baseline

    r = ReplayResult{};
    try {
        r.initialState = undoTrace(t, streams, rules, finalState, cancel, r.inconsistencies);
    } catch (const std::overflow_error& e) { // a total that cannot be held (AllocatorState)
        throw std::overflow_error(deviceName(t.device) +
                                  ", undoing the trace from the snapshot's final blocks: " + e.what());
    }
    return true;
}

ReplayResult Replay::run(const DeviceTrace& t, std::span<const uint64_t> streams, const AllocatorRules& rules,
                         const std::atomic<bool>* cancel, uint32_t checkpointEvery) {
    ReplayResult r;
    if (!t.hasFinalSnapshot && !t.hasStartState) { // no baseline to recover: from empty, leniently
        ForwardReplay(AllocatorState(rules), checkpointEvery).extend(t, streams, r, false, cancel);
        return r;
    }
    const auto finalState = toStateSegments(t.finalSegments);
    if (!findInitialState(t, streams, rules, finalState, cancel, checkpointEvery, r)) return r;
    r.recoveredBaseline = true;
    for (const auto& s : r.initialState)
        for (const auto& b : s.blocks) {
            if (b.state == BlockState::Inactive) continue;
            ++r.baselineBlocks;
            r.baselineBytes += b.size;
            r.pendingFreeAtStart += b.state == BlockState::ActivePendingFree;
        }
    ForwardReplay fwd(AllocatorState::fromSegments(r.initialState, rules), checkpointEvery);
    const uint32_t backwardProblems = r.inconsistencies;
    fwd.extend(t, streams, r, false, cancel);
    r.inconsistencies += backwardProblems;
    if (!t.hasFinalSnapshot) return r; // nothing to check the end against
    r.finalMismatch = describeMismatch(fwd.state().segments(), finalState);
    r.finalMatchesSnapshot = r.finalMismatch.empty();
    return r;
}

bool Replay::apply(AllocatorState& st, const DeviceTrace& t, size_t i, std::span<const uint64_t> streams,
                   uint64_t* blockSize) {
    return applyForward(st, t, i, streams, blockSize);
}

std::vector<StateSegment> Replay::stateAfter(const DeviceTrace& t, std::span<const uint64_t> streams,
                                             const ReplayResult& r, const AllocatorRules& rules,
                                             size_t eventsApplied) {
    eventsApplied = std::min(eventsApplied, t.eventCount());
    const Checkpoint* from = nullptr;
    for (const auto& c : r.checkpoints)
        if (c.event <= eventsApplied) from = &c;
    AllocatorState st = AllocatorState::fromSegments(from ? from->state.unpack() : r.initialState, rules);
    for (size_t i = from ? from->event : 0; i < eventsApplied; ++i) applyForward(st, t, i, streams);
    return st.segments();
}

} // namespace vs
