#include "PoolLedger.h"

#include "NativeRecorder.h" // PoolSample, PoolChange

namespace vs::cupti {
namespace {

NativeOp segmentEvent(Action a, uint64_t addr, uint64_t size, int64_t timeUs, int device) {
    NativeOp op;
    op.timeUs = timeUs, op.action = a, op.addr = addr, op.size = size, op.device = device;
    return op;
}

// The cache shrinks before a segment appears and grows after one goes: never a false peak.
void around(const NativeOp& op, std::optional<NativeOp> cache, std::vector<NativeOp>& out) {
    if (cache && cache->action == Action::SegmentUnmap) out.push_back(*cache), cache.reset();
    out.push_back(op);
    if (cache) out.push_back(*cache);
}

} // namespace

PoolLedger::Book& PoolLedger::book(uint64_t pool, int device) {
    const uint64_t base = kPoolCacheBase + (uint64_t(pools_.size()) << kPoolCacheShift);
    auto [it, fresh] = pools_.try_emplace(pool);
    if (fresh) it->second.base = base;
    if (device >= 0) it->second.device = device;
    return it->second;
}

void PoolLedger::apply(const NativeOp& op, const PoolSample* sample, std::vector<NativeOp>& out) {
    const bool sized = sample && sample->sized;
    if (op.action == Action::SegmentAlloc && sized) {
        auto it = segments_.find(op.addr);
        if (it != segments_.end() && it->second.keptAt && it->second.size == op.size &&
            it->second.pool == sample->pool) { // the pool hands out a kept block again: no segment event
            book(sample->pool).kept.erase(it->second.keptAt);
            it->second.keptAt = 0;
            return shrinkTo(sample->pool, sample->poolSize, op.timeUs, out);
        }
    }
    if (op.action == Action::SegmentAlloc || op.action == Action::SegmentMap)
        releaseOverlapping(op.addr, op.size, op.timeUs, out); // memory the pool gave back, reused
    if (op.action == Action::SegmentAlloc && sized) {
        book(sample->pool, op.device).bytes += op.size;
        segments_[op.addr] = {sample->pool, op.size};
        releaseKept(sample->pool, sample->poolSize, op.timeUs, out); // the pool reused them elsewhere
        return around(op, resizeCache(sample->pool, sample->poolSize, op.timeUs), out);
    }
    auto it = op.action == Action::SegmentFree ? segments_.find(op.addr) : segments_.end();
    if (it == segments_.end()) return out.push_back(op); // not a pool's segment
    const uint64_t pool = it->second.pool;
    Book& b = book(pool);
    if (sized && sample->poolSize >= b.bytes) { // the pool keeps it: the segment stays, free
        it->second.keptAt = ++keptCount_;
        b.kept.emplace(keptCount_, op.addr);
        if (auto cache = resizeCache(pool, sample->poolSize, op.timeUs)) out.push_back(*cache);
        return;
    }
    b.bytes -= it->second.size;
    segments_.erase(it);
    out.push_back(op);
    if (sized) shrinkTo(pool, sample->poolSize, op.timeUs, out);
}

void PoolLedger::change(const PoolChange& c, std::vector<NativeOp>& out) {
    shrinkTo(c.pool, c.poolSize, c.timeUs, out);
}

void PoolLedger::release(std::map<uint64_t, Segment>::iterator it, int64_t timeUs,
                         std::vector<NativeOp>& out) {
    Book& b = book(it->second.pool);
    b.kept.erase(it->second.keptAt);
    b.bytes -= it->second.size;
    out.push_back(segmentEvent(Action::SegmentFree, it->first, it->second.size, timeUs, b.device));
    segments_.erase(it);
}

void PoolLedger::releaseOverlapping(uint64_t addr, uint64_t size, int64_t timeUs,
                                    std::vector<NativeOp>& out) {
    auto it = segments_.lower_bound(addr);
    if (it != segments_.begin() && std::prev(it)->first + std::prev(it)->second.size > addr) --it;
    while (it != segments_.end() && it->first < addr + size) {
        auto next = std::next(it);
        if (it->second.keptAt) release(it, timeUs, out);
        it = next;
    }
}

// The pool holds `poolSize` now: kept segments go, most recently kept first, then the cache follows.
void PoolLedger::shrinkTo(uint64_t pool, uint64_t poolSize, int64_t timeUs, std::vector<NativeOp>& out) {
    releaseKept(pool, poolSize, timeUs, out);
    if (auto cache = resizeCache(pool, poolSize, timeUs)) out.push_back(*cache);
}

// While the pool's segments exceed what it holds, its kept blocks went back or to other uses: the
// most recently kept go first.
void PoolLedger::releaseKept(uint64_t pool, uint64_t poolSize, int64_t timeUs, std::vector<NativeOp>& out) {
    Book& b = book(pool);
    while (b.bytes > poolSize && !b.kept.empty())
        release(segments_.find(b.kept.rbegin()->second), timeUs, out);
}

std::optional<NativeOp> PoolLedger::resizeCache(uint64_t pool, uint64_t poolSize, int64_t timeUs) {
    Book& b = book(pool);
    const uint64_t target = poolSize > b.bytes ? poolSize - b.bytes : 0;
    if (target == b.cache) return std::nullopt;
    const NativeOp op =
        target > b.cache
            ? segmentEvent(Action::SegmentMap, b.base + b.cache, target - b.cache, timeUs, b.device)
            : segmentEvent(Action::SegmentUnmap, b.base + target, b.cache - target, timeUs, b.device);
    b.cache = target;
    return op;
}

std::vector<PoolLedger::FreeSegment> PoolLedger::freeSegments() const {
    std::vector<FreeSegment> out;
    for (const auto& [addr, s] : segments_)
        if (s.keptAt) out.push_back({addr, s.size, false, pools_.at(s.pool).device});
    for (const auto& [pool, b] : pools_)
        if (b.cache) out.push_back({b.base, b.cache, true, b.device});
    return out;
}

} // namespace vs::cupti
