#include "analysis/replay/GhostBlocks.h"

#include <algorithm>

namespace vs {

bool GhostBlocks::contains(uint64_t address) const {
    const auto it = std::lower_bound(blocks.begin(), blocks.end(), address,
                                     [](const GhostBlock& g, uint64_t a) { return g.address < a; });
    return it != blocks.end() && it->address == address;
}

GhostBlocks findGhostBlocks(const DeviceTrace& trace, const ReplayResult& replay) {
    std::vector<GhostBlock> alive; // the blocks live before the first event, by address
    for (const StateSegment& s : replay.initialState)
        for (const StateBlock& b : s.blocks)
            if (b.state != BlockState::Inactive) alive.push_back({b.address, b.size, kNoEvent});
    GhostBlocks out;
    if (alive.empty()) return out;
    std::sort(alive.begin(), alive.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
    for (size_t i = 0; i < trace.eventCount(); ++i) {
        const Action a = trace.action[i];
        if (a != Action::FreeRequested && a != Action::FreeCompleted) continue;
        const uint64_t addr = trace.addr[i];
        const auto it = std::lower_bound(alive.begin(), alive.end(), addr,
                                         [](const GhostBlock& g, uint64_t x) { return g.address < x; });
        // The first free at a start block's address is its own: nothing else is there until then.
        if (it != alive.end() && it->address == addr && it->freeEvent == kNoEvent)
            it->freeEvent = uint32_t(i);
    }
    for (const GhostBlock& g : alive)
        if (g.freeEvent != kNoEvent) out.blocks.push_back(g), out.bytes += g.size;
    return out;
}

} // namespace vs
