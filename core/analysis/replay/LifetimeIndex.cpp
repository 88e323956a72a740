#include "analysis/replay/LifetimeIndex.h"

#include "analysis/replay/CountingSort.h"

#include <algorithm>
#include <bit>

namespace vs {

// Class k >= 1 holds lifetimes in [2^(k-1), 2^k); class 0 a free at the alloc event itself (none in
// a consistent trace); the last class, allocations never freed.
size_t LifetimeIndex::classOf(const Allocation& a) {
    if (a.freeRequested == kNoEvent) return kClasses - 1;
    const uint32_t life = a.freeRequested > a.alloc ? a.freeRequested - a.alloc : 0;
    return size_t(std::bit_width(life));
}

LifetimeIndex::LifetimeIndex(const std::vector<Allocation>& all) {
    // stable: each class stays in alloc order
    countingSort(
        all.size(), kClasses, [&](size_t i) { return classOf(all[i]); }, offsets_, indices_);
}

std::vector<uint32_t> LifetimeIndex::aliveAt(const std::vector<Allocation>& all, uint32_t first,
                                             uint32_t last, uint32_t until) const {
    std::vector<uint32_t> out;
    if (offsets_.empty()) return out;
    auto madeBefore = [&](uint32_t index, uint32_t event) { return all[index].alloc < event; };
    for (size_t c = 0; c < kClasses; ++c) {
        const size_t before = out.size();
        // a lifetime under 2^c events: made after until - 2^c, or it was freed by then
        const uint64_t reach = c == kClasses - 1 ? UINT64_MAX : (uint64_t(1) << c);
        const uint32_t from =
            uint64_t(until) >= reach ? std::max<uint32_t>(first, uint32_t(until - reach + 1)) : first;
        const auto begin = indices_.begin() + offsets_[c], end = indices_.begin() + offsets_[c + 1];
        for (auto it = std::lower_bound(begin, end, from, madeBefore); it != end && all[*it].alloc <= last;
             ++it)
            if (all[*it].aliveAt(until)) out.push_back(*it);
        // each class is in alloc order: merge it in rather than sort a leak's ~1M survivors
        std::inplace_merge(out.begin(), out.begin() + ptrdiff_t(before), out.end());
    }
    return out;
}

std::vector<uint32_t> LifetimeIndex::stacksFreedAfter(const std::vector<Allocation>& all,
                                                      uint64_t events) const {
    std::vector<uint32_t> out;
    if (offsets_.empty()) return out;
    for (size_t c = 0; c + 1 < kClasses; ++c) { // class 0 too: a free recorded before its alloc wraps
        if (c > 0 && (uint64_t(1) << c) - 1 < events) continue; // all shorter
        for (uint32_t k = offsets_[c]; k < offsets_[c + 1]; ++k) {
            const Allocation& a = all[indices_[k]];
            if (uint32_t(a.freeRequested - a.alloc) >= events) out.push_back(a.stack.value);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace vs
