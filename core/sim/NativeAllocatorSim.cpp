#include "NativeAllocatorSim.h"

#include "analysis/replay/AllocatorRules.h"

#include <algorithm>

namespace vs {
namespace {

constexpr uint64_t kSmallSize = AllocatorRules::kSmallSize;
constexpr uint64_t kSmallBuffer = AllocatorRules::kSmallBuffer;
constexpr uint64_t kLargeBuffer = 20ull << 20;
constexpr uint64_t kMinLargeAlloc = 10ull << 20;
constexpr uint64_t kRoundLarge = 2ull << 20;

uint64_t roundUp(uint64_t n, uint64_t to) {
    return (n + to - 1) / to * to;
}

// get_allocation_size: the bytes cudaMalloc'd for a request that no cached block serves.
uint64_t allocationSize(uint64_t size) {
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return kLargeBuffer;
    return roundUp(size, kRoundLarge);
}

} // namespace

NativeAllocatorSim::NativeAllocatorSim(const SimConfig& config, uint64_t capacity)
    : config_(config), capacity_(capacity),
      allowedMaximum_(config.memoryFraction > 0 && capacity > 0
                          ? static_cast<uint64_t>(config.memoryFraction * static_cast<double>(capacity))
                          : 0) {
    small_.small = true;
}

uint64_t NativeAllocatorSim::roundSize(uint64_t size) const {
    AllocatorRules r;
    r.roundupPower2Divisions = config_.roundupPower2Divisions;
    return r.roundSize(size);
}

bool NativeAllocatorSim::fits(uint64_t bytes) const {
    return capacity_ == 0 || uint64_t(reserved_) + bytes <= capacity_;
}

uint32_t NativeAllocatorSim::newBlock(const Block& b) {
    if (!freeSlots_.empty()) {
        const uint32_t i = freeSlots_.back();
        freeSlots_.pop_back();
        blocks_[i] = b;
        return i;
    }
    blocks_.push_back(b);
    return static_cast<uint32_t>(blocks_.size() - 1);
}

void NativeAllocatorSim::dropBlock(uint32_t b) {
    blocks_[b].live = false;
    freeSlots_.push_back(b);
}

void NativeAllocatorSim::insertIntoBlocks(uint32_t b) {
    Block& x = blocks_[b];
    Pool& pool = poolOf(b);
    x.gcBase = pool.getFreeBlocksCallCount;
    pool.blocks.insert({x.stream, x.size, x.addr, b});
}

void NativeAllocatorSim::eraseFromBlocks(uint32_t b) {
    const Block& x = blocks_[b];
    poolOf(b).blocks.erase({x.stream, x.size, x.addr, b});
}

void NativeAllocatorSim::insertUnmapped(uint32_t b) {
    poolOf(b).unmapped.insert({blocks_[b].stream, blocks_[b].addr, b});
}

void NativeAllocatorSim::eraseUnmapped(uint32_t b) {
    poolOf(b).unmapped.erase({blocks_[b].stream, blocks_[b].addr, b});
}

void NativeAllocatorSim::splice(uint32_t b, uint32_t before, uint32_t after) {
    blocks_[b].prev = before;
    blocks_[b].next = after;
    if (before != kNil) blocks_[before].next = b;
    if (after != kNil) blocks_[after].prev = b;
}

bool NativeAllocatorSim::malloc(uint32_t id, uint64_t size, uint64_t stream, uint64_t hintAddr,
                                uint64_t hintSize) {
    Params p;
    p.size = roundSize(size);
    p.pool = p.size <= kSmallSize ? &small_ : &large_;
    p.allocSize = allocationSize(p.size);
    p.stream = stream;
    p.hintAddr = hintAddr;
    p.hintSize = hintSize;
    bool found = getFreeBlock(p);
    diverged_ |= found && hintAddr; // the recorded run cudaMalloc'd here, this one did not
    if (!found) {
        if (gcActive()) garbageCollectCachedBlocks();
        found = allocBlock(p) || (releaseAvailableCachedBlocks(p) && allocBlock(p));
        if (!found) {
            releaseCachedBlocks();
            ++retries_;
            diverged_ = true; // a flush the request stream did not record: cudaFrees the recording lacks
            found = allocBlock(p);
        }
    }
    if (!found) return false;
    allocFoundBlock(p, id, size);
    return true;
}

bool NativeAllocatorSim::getFreeBlock(Params& p) {
    Pool& pool = *p.pool;
    if (gcActive()) ++pool.getFreeBlocksCallCount; // block reuse interval, counted only with GC on
    auto it = pool.blocks.lower_bound({p.stream, p.size, 0, 0});
    const auto end = pool.blocks.end();
    if (it == end || it->stream != p.stream) return false;
    if (blocks_[it->block].expSeg != kNil) {
        if (config_.expandableSegments) {
            // best fit counts an expandable block as the size it can grow to
            auto expandableSize = [&](const SizeKey& k) {
                const Block& b = blocks_[k.block];
                return b.size + (b.next != kNil && !blocks_[b.next].mapped ? blocks_[b.next].size : 0);
            };
            auto next = std::next(it);
            while (blocks_[it->block].expSeg != kNil && next != end && next->stream == p.stream &&
                   expandableSize(*next) < expandableSize(*it))
                it = next++;
        } else {
            do ++it;
            while (it != end && blocks_[it->block].expSeg != kNil && it->stream == p.stream);
            if (it == end || it->stream != p.stream) return false;
        }
    }
    const uint64_t maxSplit = config_.maxSplitSize;
    if (p.size < maxSplit && it->size >= maxSplit) return false; // no oversize block for a small request
    if (p.size >= maxSplit && it->size >= p.size + config_.maxNonSplitRounding) return false;
    p.block = it->block;
    pool.blocks.erase(it);
    return true;
}

bool NativeAllocatorSim::allocBlock(Params& p) {
    if (allowedMaximum_ && uint64_t(reserved_) + p.allocSize > allowedMaximum_) return false;
    if (config_.expandableSegments) {
        p.block = tryAllocateExpandableBlock(p);
        return p.block != kNil;
    }
    if (!fits(p.allocSize)) return false;
    Block b;
    b.addr = newSegmentAddress(p.allocSize, p.hintAddr, p.hintSize);
    b.size = p.allocSize;
    b.stream = p.stream;
    b.small = p.pool->small;
    p.block = newBlock(b);
    reserved_ += int64_t(p.allocSize);
    ++created_;
    return true;
}

// The recorded run's address when it made the same segment for this request and the simulated run's
// cudaMalloc/cudaFree sequence has not yet left the recorded one (so that ties in best fit break the
// same way); otherwise a fresh address above every earlier one, in creation order. After a cache
// flush the driver filled the freed range from its low end in creation order (samples/whatif
// resnet18_fraction_default_hist: 76, 76, 96 MiB at ascending addresses), which this follows; the
// recorded addresses of later segments, placed by a driver in another state, would not.
uint64_t NativeAllocatorSim::newSegmentAddress(uint64_t size, uint64_t hintAddr, uint64_t hintSize) {
    auto overlaps = [&](uint64_t a) {
        auto it = addressSpace_.lower_bound({a, 0});
        if (it != addressSpace_.end() && it->first < a + size) return true;
        return it != addressSpace_.begin() && std::prev(it)->second > a;
    };
    uint64_t addr = hintAddr;
    if (diverged_ || !hintAddr || hintSize != size || hintAddr > UINT64_MAX - size || overlaps(hintAddr)) {
        diverged_ = true;
        addr = nextSynthetic_;
        nextSynthetic_ += roundUp(size, kRoundLarge) + kRoundLarge;
    }
    addressSpace_.insert({addr, addr + size});
    return addr;
}

bool NativeAllocatorSim::shouldSplit(uint32_t b, uint64_t size) const {
    const uint64_t remaining = blocks_[b].size - size;
    if (blocks_[b].small || config_.expandableSegments) return remaining >= AllocatorRules::kMinBlockSize;
    return size < config_.maxSplitSize && remaining > kSmallSize;
}

void NativeAllocatorSim::allocFoundBlock(Params& p, uint32_t id, uint64_t requested) {
    uint32_t b = p.block;
    if (shouldSplit(b, p.size)) {
        const uint32_t remaining = b;
        Block nb;
        nb.addr = blocks_[remaining].addr;
        nb.size = p.size;
        nb.stream = blocks_[remaining].stream;
        nb.small = blocks_[remaining].small;
        nb.expSeg = blocks_[remaining].expSeg;
        b = newBlock(nb);
        splice(b, blocks_[remaining].prev, remaining);
        blocks_[remaining].addr += p.size;
        blocks_[remaining].size -= p.size;
        insertIntoBlocks(remaining);
    }
    Block& x = blocks_[b];
    x.allocated = true;
    x.id = id;
    x.requested = requested;
    if (id >= blockOf_.size()) blockOf_.resize(std::max<size_t>(id + 1, blockOf_.size() * 2), kNil);
    blockOf_[id] = b;
    allocated_ += int64_t(x.size);
}

void NativeAllocatorSim::freeRequested(uint32_t id) {
    if (id >= blockOf_.size() || blockOf_[id] == kNil) return;
    Block& x = blocks_[blockOf_[id]];
    if (!x.allocated) return;
    x.allocated = false;
    x.pending = true; // waits on other streams' events until free_completed
    allocated_ -= int64_t(x.size);
    addPending(blockOf_[id]);
}

void NativeAllocatorSim::addPending(uint32_t b) {
    blocks_[b].pendingAt = static_cast<uint32_t>(pending_.size());
    pending_.push_back(b);
}

// O(1): the entry is blanked where it is, so that a flush still frees the others in request order;
// the list is compacted once blanks are most of it.
void NativeAllocatorSim::removePending(uint32_t b) {
    pending_[blocks_[b].pendingAt] = kNil;
    blocks_[b].pendingAt = kNil;
    if (++blankPending_ < 1024 || blankPending_ * 2 < pending_.size()) return;
    std::erase(pending_, kNil);
    for (uint32_t i = 0; i < pending_.size(); ++i) blocks_[pending_[i]].pendingAt = i;
    blankPending_ = 0;
}

void NativeAllocatorSim::freeCompleted(uint32_t id) {
    if (id >= blockOf_.size() || blockOf_[id] == kNil) return;
    const uint32_t b = blockOf_[id];
    if (blocks_[b].allocated) return release(id);
    if (!blocks_[b].pending) return;
    blocks_[b].pending = false;
    removePending(b);
    blockOf_[id] = kNil;
    freeBlock(b);
}

void NativeAllocatorSim::release(uint32_t id) {
    if (id >= blockOf_.size() || blockOf_[id] == kNil) return;
    const uint32_t b = blockOf_[id];
    if (!blocks_[b].allocated) return freeCompleted(id);
    blocks_[b].allocated = false;
    allocated_ -= int64_t(blocks_[b].size);
    blockOf_[id] = kNil;
    freeBlock(b);
}

void NativeAllocatorSim::freeBlock(uint32_t b) {
    blocks_[b].id = kNil;
    blocks_[b].requested = 0;
    const uint32_t prev = blocks_[b].prev, next = blocks_[b].next;
    tryMergeBlocks(b, prev);
    tryMergeBlocks(b, next);
    insertIntoBlocks(b);
}

uint64_t NativeAllocatorSim::tryMergeBlocks(uint32_t dst, uint32_t src) {
    if (src == kNil) return 0;
    const Block s = blocks_[src];
    if (s.allocated || s.pending || s.mapped != blocks_[dst].mapped) return 0;
    if (s.mapped)
        eraseFromBlocks(src);
    else
        eraseUnmapped(src);
    Block& d = blocks_[dst];
    if (d.prev == src) { // [src dst]
        d.addr = s.addr;
        d.prev = s.prev;
        if (d.prev != kNil) blocks_[d.prev].next = dst;
    } else { // [dst src]
        d.next = s.next;
        if (d.next != kNil) blocks_[d.next].prev = dst;
    }
    d.size += s.size;
    dropBlock(src);
    return s.size;
}

void NativeAllocatorSim::garbageCollectCachedBlocks() {
    const auto threshold =
        static_cast<uint64_t>(config_.garbageCollectionThreshold * static_cast<double>(allowedMaximum_));
    if (uint64_t(reserved_) <= threshold) return;
    const uint64_t target = uint64_t(reserved_) - threshold;
    auto age = [&](uint32_t b) { return uint64_t(large_.getFreeBlocksCallCount - blocks_[b].gcBase); };
    auto freeable = [&](uint32_t b) { return !isSplit(b) && blocks_[b].expSeg == kNil; };
    uint64_t totalAge = 0, reclaimed = 0;
    int count = 0;
    for (const auto& k : large_.blocks)
        if (freeable(k.block)) {
            totalAge += age(k.block);
            ++count;
        }
    bool freed = true;
    while (reclaimed < target && freed && count > 0) {
        // free the blocks at least as old as the average first, all of them (GC should run rarely)
        const double ageThreshold = static_cast<double>(totalAge) / count;
        freed = false;
        for (auto it = large_.blocks.begin(); it != large_.blocks.end();) {
            const uint32_t b = it->block;
            ++it;
            if (freeable(b) && static_cast<double>(age(b)) >= ageThreshold) {
                freed = true;
                reclaimed += blocks_[b].size;
                totalAge -= age(b);
                --count;
                releaseBlock(b);
            }
        }
    }
}

bool NativeAllocatorSim::releaseAvailableCachedBlocks(const Params& p) {
    const uint64_t maxSplit = config_.maxSplitSize;
    if (maxSplit == UINT64_MAX) return false;
    Pool& pool = *p.pool;
    const uint64_t keySize = std::max(p.size, maxSplit);
    auto it = pool.blocks.lower_bound({p.stream, keySize, 0, 0});
    auto releasable = [&](uint32_t b) { return blocks_[b].expSeg == kNil && !isSplit(b); };
    if (it != pool.blocks.end() && it->stream == p.stream && blocks_[it->block].expSeg == kNil) {
        if (!releasable(it->block)) return false;
        releaseBlock(it->block);
        return true;
    }
    // no single block is large enough: free oversize blocks, largest first
    if (it == pool.blocks.begin()) return false;
    uint64_t total = 0;
    --it;
    while (total < keySize && it->size >= maxSplit && it->stream == p.stream) {
        const auto cur = it;
        const bool first = cur == pool.blocks.begin();
        if (!first) --it;
        if (releasable(cur->block)) {
            total += cur->size;
            releaseBlock(cur->block);
        }
        if (first) break;
    }
    return total >= keySize;
}

void NativeAllocatorSim::releaseCachedBlocks() {
    // synchronize_and_free_events: frees waiting on other streams complete first
    const auto pending = std::move(pending_);
    pending_.clear();
    blankPending_ = 0;
    for (uint32_t b : pending) {
        if (b == kNil) continue; // completed since
        blocks_[b].pending = false;
        blocks_[b].pendingAt = kNil;
        blockOf_[blocks_[b].id] = kNil;
        freeBlock(b);
    }
    releaseBlocks(large_);
    releaseBlocks(small_);
}

void NativeAllocatorSim::releaseBlocks(Pool& pool) {
    std::vector<uint32_t> toUnmap;
    for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
        const uint32_t b = it->block;
        ++it;
        if (blocks_[b].expSeg != kNil)
            toUnmap.push_back(b);
        else if (!isSplit(b))
            releaseBlock(b);
    }
    for (uint32_t b : toUnmap) {
        if (!blocks_[b].live || !blocks_[b].mapped) continue;
        unmapBlock(b);
        if (!isSplit(b) && !blocks_[b].mapped) { // the whole reservation is unmapped: release it
            const auto& e = exp_[blocks_[b].expSeg];
            addressSpace_.erase({e.base, e.base + e.vaSize});
            eraseUnmapped(b);
            dropBlock(b);
        }
    }
}

void NativeAllocatorSim::releaseBlock(uint32_t b) {
    eraseFromBlocks(b);
    reserved_ -= int64_t(blocks_[b].size);
    ++released_;
    addressSpace_.erase({blocks_[b].addr, blocks_[b].addr + blocks_[b].size});
    dropBlock(b);
}

bool NativeAllocatorSim::allocatable(uint32_t b) const {
    return b != kNil && !blocks_[b].allocated && !blocks_[b].pending;
}

uint32_t NativeAllocatorSim::findExpandableBlock(const Params& p) {
    Pool& pool = *p.pool;
    for (auto it = pool.unmapped.lower_bound({p.stream, 0, 0});
         it != pool.unmapped.end() && it->stream == p.stream; ++it) {
        uint32_t c = it->block;
        if (allocatable(blocks_[c].prev)) c = blocks_[c].prev; // free memory right before the gap
        uint64_t bytes = 0;
        for (uint32_t x = c; bytes < p.size && allocatable(x); x = blocks_[x].next) bytes += blocks_[x].size;
        if (bytes >= p.size) return c;
    }
    // a new reservation of 1 1/8 the device's memory, mapped page by page as needed; never smaller
    // than the request (unlimited capacity assumes a 1 TiB device: a larger request would not fit in
    // it, and growing past the reservation's end has no block to grow into)
    ExpandableSegment e;
    e.page = pool.small ? kSmallBuffer : kLargeBuffer;
    e.vaSize = std::max<uint64_t>(capacity_ ? roundUp(capacity_ + capacity_ / 8, e.page) : (1ull << 40),
                                  roundUp(p.size, e.page));
    e.base = newSegmentAddress(e.vaSize, p.hintAddr, p.hintAddr ? e.vaSize : 0);
    exp_.push_back(e);
    Block b;
    b.addr = e.base;
    b.size = e.vaSize;
    b.stream = p.stream;
    b.small = pool.small;
    b.expSeg = static_cast<uint32_t>(exp_.size() - 1);
    b.mapped = false;
    const uint32_t c = newBlock(b);
    insertUnmapped(c);
    return c;
}

uint32_t NativeAllocatorSim::tryAllocateExpandableBlock(const Params& p) {
    uint32_t c = findExpandableBlock(p);
    if (!blocks_[c].mapped && !mapBlock(c, std::min(blocks_[c].size, p.size))) return kNil;
    while (blocks_[c].size < p.size) {
        // c is free and followed by unmapped space: mapping it merges the two
        const uint32_t next = blocks_[c].next;
        if (next == kNil || blocks_[next].mapped)
            return kNil; // the reservation ends here: nothing to grow into
        if (!mapBlock(next, std::min(p.size - blocks_[c].size, blocks_[next].size))) return kNil;
        c = next;
    }
    eraseFromBlocks(c);
    return c;
}

bool NativeAllocatorSim::mapBlock(uint32_t b, uint64_t size) {
    const ExpandableSegment& e = exp_[blocks_[b].expSeg];
    const uint64_t offset = blocks_[b].addr - e.base;
    const uint64_t mapped = roundUp(offset + size, e.page) - offset / e.page * e.page;
    if (!fits(mapped)) return false;
    eraseUnmapped(b);
    blocks_[b].mapped = true;
    if (mapped < blocks_[b].size) {
        Block rest;
        rest.addr = blocks_[b].addr + mapped;
        rest.size = blocks_[b].size - mapped;
        rest.stream = blocks_[b].stream;
        rest.small = blocks_[b].small;
        rest.expSeg = blocks_[b].expSeg;
        rest.mapped = false;
        const uint32_t r = newBlock(rest);
        splice(r, b, blocks_[b].next);
        insertUnmapped(r);
        blocks_[b].size = mapped;
    }
    tryMergeBlocks(b, blocks_[b].prev);
    tryMergeBlocks(b, blocks_[b].next);
    insertIntoBlocks(b);
    reserved_ += int64_t(mapped);
    ++created_;
    return true;
}

void NativeAllocatorSim::unmapBlock(uint32_t b) {
    const ExpandableSegment e = exp_[blocks_[b].expSeg];
    const uint64_t offset = blocks_[b].addr - e.base;
    const uint64_t begin = roundUp(offset, e.page) / e.page, end = (offset + blocks_[b].size) / e.page;
    if (begin >= end) return; // no whole page is free
    eraseFromBlocks(b);
    const uint64_t uAddr = e.base + begin * e.page, uSize = (end - begin) * e.page;
    auto freePiece = [&](uint64_t addr, uint64_t size) {
        Block piece;
        piece.addr = addr;
        piece.size = size;
        piece.stream = blocks_[b].stream;
        piece.small = blocks_[b].small;
        piece.expSeg = blocks_[b].expSeg;
        return newBlock(piece);
    };
    const uint64_t before = uAddr - blocks_[b].addr;
    const uint64_t after = blocks_[b].size - before - uSize;
    if (before > 0) {
        const uint32_t f = freePiece(blocks_[b].addr, before);
        splice(f, blocks_[b].prev, b);
        insertIntoBlocks(f);
    }
    if (after > 0) {
        const uint32_t f = freePiece(uAddr + uSize, after);
        splice(f, b, blocks_[b].next);
        insertIntoBlocks(f);
    }
    blocks_[b].addr = uAddr;
    blocks_[b].size = uSize;
    blocks_[b].mapped = false;
    tryMergeBlocks(b, blocks_[b].prev);
    tryMergeBlocks(b, blocks_[b].next);
    insertUnmapped(b);
    reserved_ -= int64_t(uSize);
    ++released_;
}

void NativeAllocatorSim::loadInitialState(const SimInput& in) {
    for (size_t s = 0; s < in.initialState.size(); ++s) {
        const StateSegment& seg = in.initialState[s];
        uint32_t expSeg = kNil;
        if (seg.expandable) { // a mapped range of a reservation the trace never showed: it cannot grow
            exp_.push_back({seg.address, seg.size,
                            seg.size == kSmallBuffer || seg.smallPool ? kSmallBuffer : kLargeBuffer});
            expSeg = static_cast<uint32_t>(exp_.size() - 1);
        }
        addressSpace_.insert({seg.address, seg.address + seg.size});
        uint32_t prev = kNil;
        for (size_t k = 0; k < seg.blocks.size(); ++k) {
            const StateBlock& sb = seg.blocks[k];
            Block b;
            b.addr = sb.address;
            b.size = sb.size;
            b.stream = seg.stream;
            b.small = seg.smallPool || seg.size == kSmallBuffer;
            b.expSeg = expSeg;
            b.requested = sb.requestedSize;
            b.allocated = sb.state == BlockState::ActiveAllocated;
            b.pending = sb.state == BlockState::ActivePendingFree;
            const uint32_t i = newBlock(b);
            splice(i, prev, kNil);
            prev = i;
            const uint32_t id = in.initialIds[s][k];
            if (id != UINT32_MAX) {
                if (id >= blockOf_.size()) blockOf_.resize(id + 1, kNil);
                blockOf_[id] = i;
                blocks_[i].id = id;
            }
            if (b.pending) addPending(i);
            if (!b.allocated && !b.pending) insertIntoBlocks(i);
            allocated_ += b.allocated ? int64_t(b.size) : 0;
        }
        reserved_ += int64_t(seg.size);
    }
}

std::vector<StateSegment> NativeAllocatorSim::segments() const {
    std::vector<StateSegment> out;
    for (uint32_t i = 0; i < blocks_.size(); ++i) {
        const Block& h = blocks_[i];
        if (!h.live || !h.mapped || (h.prev != kNil && blocks_[h.prev].mapped)) continue;
        StateSegment s{h.addr, 0, h.stream, h.expSeg != kNil, h.small, {}};
        for (uint32_t b = i; b != kNil && blocks_[b].mapped; b = blocks_[b].next) {
            const Block& x = blocks_[b];
            const BlockState st = x.allocated ? BlockState::ActiveAllocated
                                  : x.pending ? BlockState::ActivePendingFree
                                              : BlockState::Inactive;
            s.blocks.push_back({x.addr, x.size, x.requested, st, kNoEvent});
            s.size += x.size;
        }
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
    return out;
}

} // namespace vs
