#include "analysis/stacks/Survivors.h"

#include "analysis/stacks/FrameFilter.h"

#include <algorithm>
#include <unordered_map>

namespace vs {

std::vector<SurvivorGroup> survivors(const std::vector<Allocation>& all, const SurvivorQuery& q,
                                     uint32_t eventCount) {
    const uint32_t until = q.aliveAtEnd ? (eventCount ? eventCount - 1 : 0) : q.last;
    auto firstIt = std::lower_bound(all.begin(), all.end(), q.first,
                                    [](const Allocation& a, uint32_t e) { return a.alloc < e; });
    std::vector<uint32_t> kept;
    for (auto it = firstIt; it != all.end() && it->alloc <= q.last; ++it)
        if (it->aliveAt(until)) kept.push_back(static_cast<uint32_t>(it - all.begin()));
    return groupSurvivors(all, kept, q);
}

std::vector<SurvivorGroup> groupSurvivors(const std::vector<Allocation>& all, std::span<const uint32_t> kept,
                                          const SurvivorQuery& q) {
    std::unordered_map<uint32_t, size_t> index; // stack -> group
    std::vector<SurvivorGroup> groups;
    size_t at = SIZE_MAX; // the group of the previous one: a leak's survivors come in long runs of one stack
    for (uint32_t k : kept) {
        const Allocation& a = all[k];
        if (at == SIZE_MAX || groups[at].stack != a.stack) {
            auto [pos, fresh] = index.try_emplace(a.stack.value, groups.size());
            if (fresh)
                groups.push_back(
                    {.stack = a.stack, .firstEvent = a.alloc, .lastEvent = a.alloc, .allocations = {}});
            at = pos->second;
        }
        SurvivorGroup& g = groups[at];
        g.bytes += a.bytes;
        ++g.count;
        g.lastEvent = a.alloc;
        g.allocations.push_back(k);
    }
    const double span = double(q.last - q.first) + 1;
    for (auto& g : groups) {
        uint32_t seen = 0; // a bit per slice
        for (uint32_t a : g.allocations) {
            const auto s = static_cast<uint32_t>(double(all[a].alloc - q.first) / span * kSlices);
            seen |= 1u << std::min(s, kSlices - 1);
        }
        g.coverage = static_cast<uint32_t>(__builtin_popcount(seen));
    }
    std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    return groups;
}

std::vector<NetDelta> netDelta(const std::vector<Allocation>& all, uint32_t from, uint32_t to) {
    std::unordered_map<uint32_t, NetDelta> by;
    for (const auto& a : all) {
        if (a.alloc > to) break; // in event order
        const int sign = int(a.aliveAt(to)) - int(a.aliveAt(from));
        if (sign == 0) continue;
        NetDelta& d = by.try_emplace(a.stack.value, NetDelta{a.stack, 0, 0}).first->second;
        d.bytes += sign * int64_t(a.bytes);
        d.count += sign;
    }
    std::vector<NetDelta> out;
    for (auto& [k, d] : by)
        if (d.bytes != 0 || d.count != 0) out.push_back(d);
    std::sort(out.begin(), out.end(), [](const NetDelta& x, const NetDelta& y) {
        return x.bytes != y.bytes ? x.bytes > y.bytes : x.stack < y.stack;
    });
    return out;
}

std::vector<SurvivorGroup> groupBySite(const Capture& c, const std::vector<SurvivorGroup>& byStack) {
    std::unordered_map<uint32_t, size_t> index; // site frame -> group
    std::vector<SurvivorGroup> out;
    for (const auto& g : byStack) {
        const uint32_t at = firstUserFrame(c, g.stack);
        const uint32_t site = at == kNoFrame ? UINT32_MAX : c.stacks.frames(g.stack)[at].value;
        auto [pos, fresh] = index.try_emplace(site, out.size());
        if (fresh) {
            out.push_back(g);
            continue;
        }
        SurvivorGroup& s = out[pos->second];
        s.bytes += g.bytes, s.count += g.count;
        s.firstEvent = std::min(s.firstEvent, g.firstEvent), s.lastEvent = std::max(s.lastEvent, g.lastEvent);
        s.coverage = std::max(s.coverage, g.coverage);
        s.allocations.insert(s.allocations.end(), g.allocations.begin(), g.allocations.end());
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    return out;
}

} // namespace vs
