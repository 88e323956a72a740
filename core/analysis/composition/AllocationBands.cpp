#include "analysis/composition/AllocationBands.h"

#include "analysis/replay/Lifetimes.h"
#include "util/Cancelled.h"

#include <algorithm>

namespace vs {
namespace {

void checkCancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

// The `keep` allocations that hold the most memory over time (bytes x lifetime; ties: the earlier
// first), as indices in allocation order.
std::vector<uint32_t> largest(const std::vector<Allocation>& all, const DeviceTrace& t, size_t keep) {
    std::vector<uint32_t> order(all.size());
    std::vector<double> area(all.size());
    const int64_t end = t.eventCount() ? t.timeUs.back() : 0;
    for (uint32_t i = 0; i < order.size(); ++i) {
        order[i] = i;
        const int64_t until = all[i].freeRequested == kNoEvent ? end : t.timeUs[all[i].freeRequested];
        area[i] =
            double(all[i].bytes) * double(until - t.timeUs[all[i].alloc] + 1); // +1: instant ones by size
    }
    auto bigger = [&](uint32_t a, uint32_t b) { return area[a] != area[b] ? area[a] > area[b] : a < b; };
    if (keep < order.size()) {
        std::nth_element(order.begin(), order.begin() + std::ptrdiff_t(keep), order.end(), bigger);
        order.resize(keep);
    }
    std::sort(order.begin(), order.end());
    return order;
}

// Walks the chosen bands' allocs and frees in event order with the stack of live bands, calling
// `placed(band, event, offset)` for every band placed or moved. False when `budget` steps would be
// exceeded (nothing more is walked).
template <class Placed>
bool sweep(const std::vector<AllocationBand>& bands, size_t budget, const std::atomic<bool>* cancel,
           Placed placed) {
    std::vector<uint32_t> frees; // bands by free event
    for (uint32_t b = 0; b < bands.size(); ++b)
        if (bands[b].free != kNoEvent) frees.push_back(b);
    std::sort(frees.begin(), frees.end(),
              [&](uint32_t a, uint32_t b) { return bands[a].free < bands[b].free; });
    std::vector<uint32_t> live;
    std::vector<uint64_t> offset(bands.size(), 0);
    uint64_t top = 0;
    size_t steps = 0, nextAlloc = 0, nextFree = 0;
    while (nextAlloc < bands.size() || nextFree < frees.size()) {
        if ((steps & 0xffff) == 0) checkCancel(cancel);
        const bool alloc = nextFree == frees.size() ||
                           (nextAlloc < bands.size() && bands[nextAlloc].alloc < bands[frees[nextFree]].free);
        if (alloc) {
            const auto b = uint32_t(nextAlloc++);
            live.push_back(b);
            offset[b] = top;
            top += bands[b].bytes;
            placed(b, bands[b].alloc, offset[b]);
            if (++steps > budget) return false;
            continue;
        }
        const uint32_t b = frees[nextFree++];
        const auto at = std::find(live.begin(), live.end(), b);
        for (auto above = at + 1; above != live.end(); ++above) { // they slide down by its size
            offset[*above] -= bands[b].bytes;
            placed(*above, bands[b].free, offset[*above]);
            if (++steps > budget) return false;
        }
        top -= bands[b].bytes;
        live.erase(at);
    }
    return true;
}

} // namespace

AllocationBands AllocationBands::build(const DeviceTrace& trace, const ReplayResult& replay,
                                       const Options& options, const std::atomic<bool>* cancel) {
    const std::vector<Allocation> all = pairAllocations(trace, replay);
    AllocationBands out;
    out.allocations_ = all.size();
    std::vector<uint32_t> counts;
    for (size_t keep = std::min(options.maxBands, all.size());; keep /= 2) {
        out.bands_.clear();
        for (uint32_t i : largest(all, trace, keep))
            out.bands_.push_back({all[i].alloc, all[i].freeRequested, all[i].bytes, all[i].stack, 0, 0});
        counts.assign(out.bands_.size(), 0);
        if (sweep(out.bands_, options.maxSteps, cancel, [&](uint32_t b, uint32_t, uint64_t) { ++counts[b]; }))
            break;
    }
    uint32_t next = 0;
    for (size_t b = 0; b < out.bands_.size(); ++b) {
        out.bands_[b].firstStep = next;
        next += counts[b];
    }
    out.steps_.resize(next);
    sweep(out.bands_, SIZE_MAX, cancel, [&](uint32_t b, uint32_t event, uint64_t offset) {
        AllocationBand& band = out.bands_[b];
        out.steps_[band.firstStep + band.stepCount++] = {event, offset};
    });
    out.bandBytes_ = totals(out.bands_);
    return out;
}

// The bands' total after every alloc or free of one of them, in event order.
std::vector<BandStep> AllocationBands::totals(const std::vector<AllocationBand>& bands) {
    std::vector<BandStep> changes;
    for (const AllocationBand& b : bands) {
        changes.push_back({b.alloc, b.bytes});
        if (b.free != kNoEvent) changes.push_back({b.free, uint64_t(0) - b.bytes});
    }
    std::sort(changes.begin(), changes.end(),
              [](const BandStep& a, const BandStep& b) { return a.event < b.event; });
    std::vector<BandStep> out;
    uint64_t total = 0;
    for (const BandStep& c : changes) {
        total += c.offset; // modulo 2^64: adding a free's negated bytes subtracts them
        if (!out.empty() && out.back().event == c.event)
            out.back().offset = total;
        else
            out.push_back({c.event, total});
    }
    return out;
}

namespace {
// The value of a step list after `event`: the last step at or before it.
const BandStep* stepAfter(std::span<const BandStep> steps, uint32_t event) {
    const auto it = std::upper_bound(steps.begin(), steps.end(), event,
                                     [](uint32_t e, const BandStep& s) { return e < s.event; });
    return it == steps.begin() ? nullptr : &*(it - 1);
}
} // namespace

uint64_t AllocationBands::offsetAfter(const AllocationBand& b, uint32_t event) const {
    const BandStep* s = stepAfter(steps(b), event);
    return s ? s->offset : 0;
}

uint64_t AllocationBands::bandBytesAfter(uint32_t event) const {
    if (event == UINT32_MAX) return 0;
    const BandStep* s = stepAfter(bandBytes_, event);
    return s ? s->offset : 0;
}

std::optional<size_t> AllocationBands::hit(uint32_t event, double bytes) const {
    const auto end = std::upper_bound(bands_.begin(), bands_.end(), event,
                                      [](uint32_t e, const AllocationBand& b) { return e < b.alloc; });
    for (auto it = bands_.begin(); it != end; ++it) {
        if (!it->aliveAfter(event)) continue;
        const double low = double(offsetAfter(*it, event));
        if (bytes >= low && bytes < low + double(it->bytes)) return size_t(it - bands_.begin());
    }
    return std::nullopt;
}

} // namespace vs
