#include "analysis/replay/ForwardReplay.h"

#include "util/Cancelled.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vs {

ForwardReplay::ForwardReplay(AllocatorState start, uint32_t checkpointEvery)
    : st_(std::move(start)), every_(checkpointEvery) {}

void ForwardReplay::checkpoint(size_t i, ReplayResult& out) {
    out.checkpoints.push_back({static_cast<uint32_t>(i), st_.totals(), PackedState(st_.segments())});
    // Spacing grows with the state's size so that all checkpoints together stay within a few bytes
    // per event, while rebuilding any moment replays at most one interval.
    nextCheckpoint_ = i + std::max<size_t>(every_, 8 * st_.blockCount() * every_ / Replay::kCheckpointEvery);
}

// A total that cannot be held (AllocatorState refuses it), told with the event that made it.
[[noreturn]] void totalsOverflowAt(const DeviceTrace& t, size_t i, const std::overflow_error& e) {
    throw std::overflow_error(deviceName(t.device) + ", event " + std::to_string(i) + " ('" +
                              std::string(actionName(t.action[i])) + "' of " + std::to_string(t.size[i]) +
                              " bytes): " + e.what());
}

bool ForwardReplay::extend(const DeviceTrace& t, std::span<const uint64_t> streams, ReplayResult& out,
                           bool strict, const std::atomic<bool>* cancel) {
    try {
        return extendChecked(t, streams, out, strict, cancel);
    } catch (const std::overflow_error& e) {
        totalsOverflowAt(t, applied_, e);
    }
}

bool ForwardReplay::extendChecked(const DeviceTrace& t, std::span<const uint64_t> streams, ReplayResult& out,
                                  bool strict, const std::atomic<bool>* cancel) {
    if (applied_ == 0) { // a fresh result: what holds before the first event
        out.checkpoints.clear(), out.blockSizeExceptions.clear();
        out.rules = st_.rules(), out.allocEvents = 0;
        out.allocated.clear(), out.active.clear(), out.reserved.clear();
        out.inconsistencies = 0;
        out.initial = out.peak = st_.totals();
    }
    const size_t n = t.eventCount();
    for (size_t i = applied_; i < n; ++i) {
        if (cancel && (i & 0xffff) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        if (i == nextCheckpoint_) checkpoint(i, out);
        uint64_t block = 0;
        if (!Replay::apply(st_, t, i, streams, &block)) {
            if (strict) return false;
            ++out.inconsistencies;
        }
        if (t.action[i] == Action::Alloc) {
            ++out.allocEvents;
            if (block != out.rules.roundSize(t.size[i]))
                out.blockSizeExceptions.emplace_back(uint32_t(i), block);
        }
        const Totals& v = st_.totals();
        out.allocated.push_back(v.allocated), out.active.push_back(v.active),
            out.reserved.push_back(v.reserved);
        out.peak.allocated = std::max(out.peak.allocated, v.allocated);
        out.peak.active = std::max(out.peak.active, v.active);
        out.peak.reserved = std::max(out.peak.reserved, v.reserved);
        applied_ = i + 1;
    }
    out.final = st_.totals();
    return true;
}

} // namespace vs
