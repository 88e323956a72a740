#include "analysis/replay/CaptureWindow.h"

#include "analysis/replay/Replay.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vs {
namespace {

int64_t firstEventUs(const Capture& c) {
    int64_t origin = INT64_MAX;
    for (const auto& d : c.devices)
        if (d.eventCount()) origin = std::min(origin, d.timeUs.front());
    return origin == INT64_MAX ? 0 : origin;
}

// Replayed state as a snapshot's block list; a block's stack is its alloc event's.
std::vector<SnapshotSegment> asSnapshot(const std::vector<StateSegment>& state, const DeviceTrace& t) {
    std::vector<SnapshotSegment> out;
    out.reserve(state.size());
    for (const auto& s : state) {
        SnapshotSegment g;
        g.address = s.address, g.totalSize = s.size, g.stream = s.stream;
        g.expandable = s.expandable, g.smallPool = s.smallPool;
        for (const auto& b : s.blocks)
            g.blocks.push_back({b.address, b.size, b.requestedSize, b.state,
                                b.allocEvent == kNoEvent ? StackId{0} : t.stack[b.allocEvent]});
        out.push_back(std::move(g));
    }
    return out;
}

// Sparse (event index, text) pairs of events in [from, to), re-indexed from the window's start.
std::vector<std::pair<uint32_t, StringId>> sliceSparse(const std::vector<std::pair<uint32_t, StringId>>& v,
                                                       size_t from, size_t to) {
    std::vector<std::pair<uint32_t, StringId>> out;
    for (const auto& [i, s] : v)
        if (i >= from && i < to) out.emplace_back(static_cast<uint32_t>(i - from), s);
    return out;
}

// The device's events in [first, last) with the replayed states at both ends.
DeviceTrace cutDevice(const DeviceTrace& t, std::span<const uint64_t> streams, const AllocatorRules& rules,
                      size_t first, size_t last, const std::atomic<bool>* cancel) {
    const ReplayResult r = Replay::run(t, streams, rules, cancel);
    DeviceTrace w;
    w.device = t.device;
    w.append(t, first, last);
    w.compileContext = sliceSparse(t.compileContext, first, last);
    w.userMetadata = sliceSparse(t.userMetadata, first, last);
    w.startSegments = asSnapshot(Replay::stateAfter(t, streams, r, rules, first), t);
    w.hasStartState = true;
    if (last == t.eventCount()) { // the window reaches the end: the recorded final list stays the truth
        w.finalSegments = t.finalSegments;
        w.hasFinalSnapshot = t.hasFinalSnapshot;
    } else {
        w.finalSegments = asSnapshot(Replay::stateAfter(t, streams, r, rules, last), t);
    }
    return w;
}

} // namespace

std::unique_ptr<Capture> cutWindow(std::unique_ptr<Capture> full, const TimeWindow& window,
                                   const std::atomic<bool>* cancel) {
    if (!(window.fromS >= 0) || !(window.toS > window.fromS))
        throw std::invalid_argument("the window must start at 0 s or later and end after it starts");
    Capture& c = *full;
    const AllocatorRules rules = AllocatorRules::from(c.settings);
    const int64_t origin = firstEventUs(c);
    const int64_t fromUs = origin + std::llround(window.fromS * 1e6);
    const int64_t toUs = std::isinf(window.toS) ? INT64_MAX : origin + std::llround(window.toS * 1e6);
    LoadedWindow info{true, origin, window.fromS, window.toS, 0, 0, 0};
    int64_t lastEventUs = origin;
    for (auto& d : c.devices) {
        if (d.eventCount()) lastEventUs = std::max(lastEventUs, d.timeUs.back());
        const auto first =
            size_t(std::lower_bound(d.timeUs.begin(), d.timeUs.end(), fromUs) - d.timeUs.begin());
        const auto last = size_t(std::upper_bound(d.timeUs.begin(), d.timeUs.end(), toUs) - d.timeUs.begin());
        info.eventsBefore += first, info.eventsIn += last - first, info.eventsAfter += d.eventCount() - last;
        d = cutDevice(d, c.streams, rules, first, last, cancel); // frees the full columns
    }
    const auto outside = [&](const auto& x) { return x.timeUs < fromUs || x.timeUs > toUs; };
    std::erase_if(c.annotations, outside), std::erase_if(c.retention, outside);
    std::erase_if(c.driverSamples, outside);
    std::erase_if(c.tags,
                  [&](const auto& x) { return x.timeUs > toUs; }); // earlier ones still name live tensors
    if (!info.eventsIn)
        throw std::invalid_argument("no event lies in the window (the capture spans 0–" +
                                    fixed(double(lastEventUs - origin) / 1e6, 3) + " s)");
    c.window = info;
    const std::string range = std::isinf(window.toS)
                                  ? "from " + fixed(window.fromS, 3) + " s to the end"
                                  : fixed(window.fromS, 3) + "–" + fixed(window.toS, 3) + " s";
    c.warnings.push_back("only the window " + range + " was loaded: " + std::to_string(info.eventsIn) +
                         " of " + std::to_string(info.eventsBefore + info.eventsIn + info.eventsAfter) +
                         " events; the allocator state at its start is the full capture's");
    return full;
}

} // namespace vs
