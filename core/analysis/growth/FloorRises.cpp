#include "analysis/growth/FloorRises.h"

#include <algorithm>
#include <optional>

namespace vs {
namespace {

// Slices fine enough to see a staircase of a few dozen steps and the plateau after it, coarse
// enough that one slice spans a forward pass of a typical trace (and cheap: one min per slice).
constexpr uint32_t kMaxSlices = 512;
constexpr uint32_t kMinEventsPerSlice = 4;

struct Level {
    int64_t floor;
    uint32_t slice;
};

} // namespace

FloorRises findFloorRises(const CompactSeries& allocated, int64_t minRise) {
    FloorRises out;
    const auto n = uint32_t(allocated.size());
    if (n < 2 * kMinEventsPerSlice) return out;
    const uint32_t wanted = std::min(kMaxSlices, n / kMinEventsPerSlice);
    out.eventsPerSlice = (n + wanted - 1) / wanted;
    out.slices = (n + out.eventsPerSlice - 1) / out.eventsPerSlice;
    std::vector<uint32_t>& at = out.floorAt;
    at.resize(out.slices);
    out.floor.resize(out.slices);
    for (uint32_t s = 0; s < out.slices; ++s) {
        const uint32_t from = s * out.eventsPerSlice, to = std::min(n, from + out.eventsPerSlice);
        at[s] = uint32_t(allocated.argMin(from, to));
        out.floor[s] = allocated[at[s]];
    }
    // levels: strictly rising floors, each the lowest of everything from its slice to the current one.
    // A release spread over consecutive slices (a list freed item by item) is one release.
    std::vector<Level> levels;
    std::optional<FloorRise> falling; // the release going on, while the floor keeps dropping
    auto settle = [&](uint32_t slice) {
        if (falling && falling->rise() >= minRise) {
            falling->releasedUntil = std::min(n, slice * out.eventsPerSlice);
            out.released.push_back(*falling);
        }
        falling.reset();
    };
    for (uint32_t s = 0; s < out.slices; ++s) {
        const int64_t v = out.floor[s];
        if (levels.empty() || v >= levels.back().floor) settle(s);
        if (!levels.empty() && v < levels.back().floor) {
            const Level top = levels.back();
            uint32_t first = top.slice; // the lowest level released
            while (!levels.empty() && levels.back().floor > v) first = levels.back().slice, levels.pop_back();
            if (!falling) {
                falling.emplace();
                falling->top = at[s - 1]; // the floor of the slice before the drop: only kept memory is alive
                falling->releasedAt = s * out.eventsPerSlice;
                falling->start = first * out.eventsPerSlice;
                falling->to = top.floor;
            }
            // levels pushed while falling are below the release's own: only lower ones widen it
            falling->start = std::min(falling->start, first * out.eventsPerSlice);
            falling->base = levels.empty() ? 0 : at[levels.back().slice];
            falling->from = v;
        }
        if (levels.empty() || v > levels.back().floor) levels.push_back({v, s});
    }
    settle(out.slices);
    out.kept.base = at[levels.front().slice];
    out.kept.start = levels.size() > 1 ? levels[1].slice * out.eventsPerSlice : out.kept.base;
    out.kept.top = n - 1; // alive at the end is kept, whatever the last slice's floor
    out.kept.from = levels.front().floor, out.kept.to = levels.back().floor;
    return out;
}

} // namespace vs
