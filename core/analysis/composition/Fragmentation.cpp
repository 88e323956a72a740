#include "analysis/composition/Fragmentation.h"

#include "analysis/replay/AllocatorState.h"
#include "util/Cancelled.h"

#include <algorithm>

namespace vs {

std::vector<FragmentationSample> fragmentationSeries(const DeviceTrace& t, std::span<const uint64_t> streams,
                                                     const ReplayResult& r, const AllocatorRules& rules,
                                                     size_t samples, const std::atomic<bool>* cancel) {
    std::vector<FragmentationSample> out;
    const size_t n = t.eventCount();
    if (n == 0 || samples == 0) return out;
    AllocatorState st = AllocatorState::fromSegments(r.initialState, rules);
    const double step = double(n) / double(samples);
    size_t applied = 0;
    for (size_t k = 1; k <= samples; ++k) {
        const auto until = std::min(n, static_cast<size_t>(double(k) * step + 0.5));
        if (until == applied && k != samples) continue;
        for (; applied < until; ++applied) Replay::apply(st, t, applied, streams);
        if (cancel && cancel->load()) throw Cancelled();
        const auto f = st.freeStats();
        const Totals& v = st.totals();
        out.push_back(
            {static_cast<uint32_t>(applied), v.reserved - v.active, f.largest, f.fragments, f.split});
    }
    return out;
}

std::vector<size_t> wouldNeedNewSegment(const std::vector<FragmentationSample>& series, uint64_t bytes) {
    std::vector<size_t> out;
    for (size_t i = 0; i < series.size(); ++i)
        if (series[i].largestFree < bytes && series[i].cachedFree >= int64_t(bytes)) out.push_back(i);
    return out;
}

uint64_t OccupancyGrid::addressOfRow(int row) const {
    const uint64_t at = packedBytes * uint64_t(std::max(row, 0)) / uint64_t(std::max(rows, 1));
    for (const Range& r : ranges)
        if (at < r.offset + r.size) return r.address + (at - r.offset);
    return ranges.empty() ? 0 : ranges.back().address + ranges.back().size;
}

namespace {

// Every address range that was reserved at some point: the initial state, mapped or allocated
// segments, and the final list; merged where they overlap or touch.
std::vector<OccupancyGrid::Range> reservedRanges(const DeviceTrace& t, const ReplayResult& r) {
    std::vector<std::pair<uint64_t, uint64_t>> spans; // [begin, end)
    for (const auto& s : r.initialState) spans.emplace_back(s.address, s.address + s.size);
    for (const auto& s : t.finalSegments) spans.emplace_back(s.address, s.address + s.totalSize);
    for (size_t i = 0; i < t.eventCount(); ++i)
        if (t.action[i] == Action::SegmentAlloc || t.action[i] == Action::SegmentMap)
            spans.emplace_back(t.addr[i], t.addr[i] + t.size[i]);
    std::sort(spans.begin(), spans.end());
    std::vector<OccupancyGrid::Range> out;
    uint64_t offset = 0;
    for (const auto& [b, e] : spans) {
        if (!out.empty() && b <= out.back().address + out.back().size) {
            const uint64_t end = std::max(out.back().address + out.back().size, e);
            offset += end - (out.back().address + out.back().size);
            out.back().size = end - out.back().address;
        } else {
            out.push_back({b, e - b, offset});
            offset += e - b;
        }
    }
    return out;
}

} // namespace

OccupancyGrid occupancyGrid(const DeviceTrace& t, std::span<const uint64_t> streams, const ReplayResult& r,
                            const AllocatorRules& rules, int columns, int rows,
                            const std::atomic<bool>* cancel) {
    OccupancyGrid g;
    g.ranges = reservedRanges(t, r);
    for (const auto& x : g.ranges) g.packedBytes = std::max(g.packedBytes, x.offset + x.size);
    if (columns <= 0 || rows <= 0 || g.packedBytes == 0 || t.eventCount() == 0) return g;
    g.columns = columns, g.rows = rows;
    g.cells.assign(size_t(columns) * size_t(rows), OccupancyGrid::Unreserved);
    auto packed = [&](uint64_t addr) -> uint64_t { // address -> offset on the packed axis
        auto it = std::upper_bound(g.ranges.begin(), g.ranges.end(), addr,
                                   [](uint64_t a, const OccupancyGrid::Range& x) { return a < x.address; });
        if (it == g.ranges.begin()) return 0;
        --it;
        return it->offset + std::min(addr - it->address, it->size);
    };
    AllocatorState st = AllocatorState::fromSegments(r.initialState, rules);
    const size_t n = t.eventCount();
    size_t applied = 0;
    for (int c = 0; c < columns; ++c) {
        const auto until = std::min(n, size_t(double(c + 1) * double(n) / columns + 0.5));
        for (; applied < until; ++applied) Replay::apply(st, t, applied, streams);
        if (cancel && cancel->load()) throw Cancelled();
        g.columnEvents.push_back(static_cast<uint32_t>(applied));
        st.forEachBlock([&](uint64_t addr, uint64_t size, BlockState s) {
            const uint8_t cell = s == BlockState::ActiveAllocated     ? OccupancyGrid::Allocated
                                 : s == BlockState::ActivePendingFree ? OccupancyGrid::PendingFree
                                                                      : OccupancyGrid::Free;
            const auto r0 = int(packed(addr) * uint64_t(rows) / g.packedBytes);
            const auto r1 =
                int(std::max(packed(addr) + 1, packed(addr + size)) * uint64_t(rows) / g.packedBytes);
            for (int row = r0; row <= std::min(r1, rows - 1); ++row) {
                uint8_t& v = g.cells[size_t(row) * size_t(columns) + size_t(c)];
                v = std::max(v, cell); // a cell shows the busiest thing in it
            }
        });
    }
    return g;
}

} // namespace vs
