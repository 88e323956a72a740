#include "analysis/replay/AllocatorState.h"

#include <algorithm>
#include <stdexcept>

namespace vs {

AllocatorState AllocatorState::fromSegments(const std::vector<StateSegment>& segments,
                                            const AllocatorRules& rules) {
    AllocatorState st(rules);
    uint64_t previousEnd = 0;
    for (const auto& s : segments) { // in address order
        // A damaged or hostile list may have overlapping segments or blocks that do not tile their
        // segment: keep what is coherent and fill gaps with free space, so the model stays valid.
        if (s.size == 0 || s.address < previousEnd || s.address + s.size < s.address) continue;
        previousEnd = s.address + s.size;
        const uint32_t seg = st.newSegment(s.address, s.size, s.stream, s.expandable);
        st.segs_[seg].small = s.smallPool;
        uint64_t at = s.address;
        auto add = [&](uint64_t addr, uint64_t size, uint64_t requested, BlockState state, uint32_t event) {
            const uint32_t blk = st.newBlock(addr, size, seg, BlockState::Inactive);
            st.blocks_[blk].requested = requested;
            st.blocks_[blk].allocEvent = event;
            st.linkAfter(blk, st.segs_[seg].tail);
            st.setState(blk, state);
        };
        for (const auto& b : s.blocks) {
            if (b.size == 0 || b.address < at || b.address + b.size > previousEnd ||
                b.address + b.size < b.address)
                continue;
            if (b.address > at) add(at, b.address - at, 0, BlockState::Inactive, kNoEvent);
            add(b.address, b.size, b.requestedSize, b.state, b.allocEvent);
            at = b.address + b.size;
        }
        if (at < previousEnd) add(at, previousEnd - at, 0, BlockState::Inactive, kNoEvent);
    }
    return st;
}

namespace {
// Reuses a released slot of a pool (blocks or segments), else appends one.
template <class T> uint32_t takeSlot(std::vector<T>& pool, std::vector<uint32_t>& spare) {
    if (spare.empty()) return pool.emplace_back(), static_cast<uint32_t>(pool.size() - 1);
    const uint32_t i = spare.back();
    spare.pop_back();
    return i;
}
} // namespace

uint32_t AllocatorState::newBlock(uint64_t addr, uint64_t size, uint32_t seg, BlockState st) {
    const uint32_t b = takeSlot(blocks_, spareBlocks_);
    blocks_[b] = {addr, size, 0, seg, kNil, kNil, kNoEvent, BlockState::Inactive};
    byAddr_.set(addr, b);
    if (freeIndex_) (*freeIndex_)[addr] = b;
    setState(b, st);
    return b;
}

void AllocatorState::dropBlock(uint32_t b) {
    setState(b, BlockState::Inactive);
    Block& k = blocks_[b];
    if (freeIndex_) freeIndex_->erase(k.addr);
    if (byAddr_.find(k.addr) == b) byAddr_.erase(k.addr);
    Segment& s = segs_[k.seg];
    (k.prev == kNil ? s.head : blocks_[k.prev].next) = k.next;
    (k.next == kNil ? s.tail : blocks_[k.next].prev) = k.prev;
    spareBlocks_.push_back(b);
}

// total += sign * size, checked: live blocks or segments adding up past 2^63 bytes are no state a
// device had (8,200 blocks of 2^50 printed a peak of 8191 PiB, issue 47). Refused, never wrapped.
static void addScaled(int64_t& total, uint64_t size, int sign) {
    if (sign == 0) return;
    const bool wraps =
        size > uint64_t(INT64_MAX) || (sign > 0 ? __builtin_add_overflow(total, int64_t(size), &total)
                                                : __builtin_sub_overflow(total, int64_t(size), &total));
    if (wraps) [[unlikely]]
        throw std::overflow_error("the memory alive at once adds up to more than 2^63 bytes (8 EiB), "
                                  "more than any device holds: the capture's sizes are not real");
}

void AllocatorState::setState(uint32_t b, BlockState st) {
    Block& k = blocks_[b];
    addScaled(totals_.allocated, k.size,
              (st == BlockState::ActiveAllocated) - (k.state == BlockState::ActiveAllocated));
    addScaled(totals_.active, k.size, (st != BlockState::Inactive) - (k.state != BlockState::Inactive));
    if (freeIndex_ && (st == BlockState::Inactive) != (k.state == BlockState::Inactive)) {
        if (st == BlockState::Inactive)
            (*freeIndex_)[k.addr] = b;
        else
            freeIndex_->erase(k.addr);
    }
    k.state = st;
}

void AllocatorState::setSize(uint32_t b, uint64_t size) {
    Block& k = blocks_[b];
    const bool grows = size >= k.size;
    const uint64_t delta = grows ? size - k.size : k.size - size;
    addScaled(totals_.allocated, delta, (k.state == BlockState::ActiveAllocated) * (grows ? 1 : -1));
    addScaled(totals_.active, delta, (k.state != BlockState::Inactive) * (grows ? 1 : -1));
    k.size = size;
}

void AllocatorState::linkAfter(uint32_t b, uint32_t after) {
    Block& k = blocks_[b];
    Segment& s = segs_[k.seg];
    k.prev = after;
    k.next = after == kNil ? s.head : blocks_[after].next;
    (after == kNil ? s.head : blocks_[after].next) = b;
    (k.next == kNil ? s.tail : blocks_[k.next].prev) = b;
}

uint32_t AllocatorState::splitAt(uint32_t b, uint64_t offset) {
    const uint64_t upperSize = blocks_[b].size - offset;
    const BlockState st = blocks_[b].state;
    setSize(b, offset);
    const uint32_t upper = newBlock(blocks_[b].addr + offset, upperSize, blocks_[b].seg, st);
    linkAfter(upper, b);
    return upper;
}

uint32_t AllocatorState::mergeFree(uint32_t b) {
    if (blocks_[b].state != BlockState::Inactive) return b;
    const uint32_t next = blocks_[b].next;
    if (next != kNil && blocks_[next].state == BlockState::Inactive) {
        const uint64_t grow = blocks_[next].size;
        dropBlock(next);
        setSize(b, blocks_[b].size + grow);
    }
    const uint32_t prev = blocks_[b].prev;
    if (prev != kNil && blocks_[prev].state == BlockState::Inactive) {
        const uint64_t grow = blocks_[b].size;
        dropBlock(b);
        setSize(prev, blocks_[prev].size + grow);
        return prev;
    }
    return b;
}

uint32_t AllocatorState::newSegment(uint64_t addr, uint64_t size, uint64_t stream, bool expandable) {
    const uint32_t s = takeSlot(segs_, spareSegs_);
    segs_[s] = {addr, 0, stream, kNil, kNil, size <= AllocatorRules::kSmallBuffer, expandable, true};
    setSegmentRange(s, addr, size);
    return s;
}

void AllocatorState::setSegmentRange(uint32_t s, uint64_t addr, uint64_t size) {
    Segment& g = segs_[s];
    if (g.size) {
        if (segmentStartingAt(g.addr) == s) segStart_.erase(g.addr);
        if (segEnd_.find(g.addr + g.size) == s) segEnd_.erase(g.addr + g.size);
    }
    addScaled(totals_.reserved, g.size, -1); // the old range first: a range that grows never passes the sum
    addScaled(totals_.reserved, size, 1);
    g.addr = addr, g.size = size;
    if (size) segStart_[addr] = s, segEnd_.set(addr + size, s);
}

void AllocatorState::dropSegment(uint32_t s) {
    while (segs_[s].head != kNil) dropBlock(segs_[s].head);
    setSegmentRange(s, segs_[s].addr, 0);
    segs_[s].alive = false;
    spareSegs_.push_back(s);
}

uint32_t AllocatorState::segmentStartingAt(uint64_t addr) const {
    const auto it = segStart_.find(addr);
    return it == segStart_.end() ? kNil : it->second;
}

// Live segments do not overlap in a coherent trace: the one starting last at or below addr is the
// only candidate. (A hostile trace's overlapping ranges are inconsistencies either way.)
uint32_t AllocatorState::segmentContaining(uint64_t addr, bool expandableOnly) const {
    auto it = segStart_.upper_bound(addr);
    if (it == segStart_.begin()) return kNil;
    const Segment& g = segs_[std::prev(it)->second];
    if (!g.alive || (expandableOnly && !g.expandable) || addr - g.addr >= g.size) return kNil;
    return std::prev(it)->second;
}

bool AllocatorState::alloc(uint64_t addr, uint64_t requested, uint32_t event, uint64_t* blockSize) {
    uint32_t b = blockAt(addr);
    bool ok = true;
    if (b == kNil || blocks_[b].state != BlockState::Inactive) {
        // Not at a free block's start: carve one out of the free block that contains addr. Only a
        // trace that contradicts the state gets here; one that does it at every alloc would walk a
        // segment's blocks each time, so the ordered index of free blocks is kept from then on.
        if (!freeIndex_) enableContainmentIndex();
        const uint32_t f = freeBlockContaining(addr);
        if (f == kNil) return false;
        b = splitAt(f, addr - blocks_[f].addr);
        ok = false;
    }
    const uint64_t size = rules_.roundSize(requested);
    const Segment& g = segs_[blocks_[b].seg];
    if (blocks_[b].size < size)
        ok = false;
    else if (rules_.shouldSplit(blocks_[b].size, size, g.small, g.expandable))
        splitAt(b, size);
    blocks_[b].requested = requested;
    blocks_[b].allocEvent = event;
    setState(b, BlockState::ActiveAllocated);
    if (blockSize) *blockSize = blocks_[b].size;
    return ok;
}

bool AllocatorState::freeRequested(uint64_t addr) {
    const uint32_t b = blockAt(addr);
    if (b == kNil || blocks_[b].state != BlockState::ActiveAllocated) return false;
    setState(b, BlockState::ActivePendingFree);
    return true;
}

bool AllocatorState::freeCompleted(uint64_t addr) {
    const uint32_t b = blockAt(addr);
    if (b == kNil || blocks_[b].state == BlockState::Inactive) return false;
    setState(b, BlockState::Inactive); // also when free_requested was skipped (skip_actions)
    mergeFree(b);
    return true;
}

bool AllocatorState::segmentAlloc(uint64_t addr, uint64_t size, uint64_t stream) {
    if (segmentStartingAt(addr) != kNil || segmentContaining(addr, false) != kNil) return false;
    const uint32_t s = newSegment(addr, size, stream, false);
    linkAfter(newBlock(addr, size, s, BlockState::Inactive), kNil);
    return true;
}

bool AllocatorState::segmentFree(uint64_t addr, uint64_t size) {
    const uint32_t s = segmentStartingAt(addr);
    if (s == kNil) return false;
    const Segment& g = segs_[s];
    const bool clean =
        g.size == size && g.head == g.tail && g.head != kNil && blocks_[g.head].state == BlockState::Inactive;
    dropSegment(s);
    return clean;
}

bool AllocatorState::map(uint64_t addr, uint64_t size, uint64_t stream) {
    uint32_t s = segEnd_.find(addr);
    if (s != kNil && !segs_[s].expandable) s = kNil; // cudaMalloc'd neighbours never merge
    if (s == kNil) {
        s = newSegment(addr, size, stream, true);
        linkAfter(newBlock(addr, size, s, BlockState::Inactive), kNil);
    } else {
        const uint32_t tail = segs_[s].tail;
        setSegmentRange(s, segs_[s].addr, segs_[s].size + size);
        if (tail != kNil && blocks_[tail].state == BlockState::Inactive)
            setSize(tail, blocks_[tail].size + size);
        else
            linkAfter(newBlock(addr, size, s, BlockState::Inactive), tail);
    }
    const uint32_t right = segmentStartingAt(addr + size);
    if (right != kNil && right != s && segs_[right].expandable) joinSegments(s, right);
    return true;
}

void AllocatorState::joinSegments(uint32_t left, uint32_t right) {
    const uint64_t total = segs_[left].size + segs_[right].size;
    for (uint32_t b = segs_[right].head; b != kNil; b = blocks_[b].next) blocks_[b].seg = left;
    const uint32_t leftTail = segs_[left].tail, rightHead = segs_[right].head;
    blocks_[leftTail].next = rightHead;
    blocks_[rightHead].prev = leftTail;
    segs_[left].tail = segs_[right].tail;
    segs_[right].head = segs_[right].tail = kNil;
    dropSegment(right);
    setSegmentRange(left, segs_[left].addr, total);
    mergeFree(leftTail);
}

bool AllocatorState::unmap(uint64_t addr, uint64_t size) {
    const uint32_t s = segmentContaining(addr, true);
    if (s == kNil || addr + size > segs_[s].addr + segs_[s].size) return false;
    uint32_t b = segs_[s].head;
    while (b != kNil && blocks_[b].addr + blocks_[b].size <= addr) b = blocks_[b].next;
    if (b == kNil || blocks_[b].state != BlockState::Inactive ||
        blocks_[b].addr + blocks_[b].size < addr + size)
        return false;
    if (blocks_[b].addr < addr) b = splitAt(b, addr - blocks_[b].addr);
    if (blocks_[b].size > size) splitAt(b, size);
    // b now covers exactly the unmapped range: cut the segment there.
    const uint32_t after = blocks_[b].next;
    const uint64_t segEnd = segs_[s].addr + segs_[s].size;
    const bool atFront = blocks_[b].prev == kNil;
    dropBlock(b);
    if (atFront && after == kNil) {
        dropSegment(s);
    } else if (atFront) {
        setSegmentRange(s, addr + size, segEnd - addr - size);
    } else if (after == kNil) {
        setSegmentRange(s, segs_[s].addr, addr - segs_[s].addr);
    } else { // a hole in the middle: the part above becomes its own range
        setSegmentRange(s, segs_[s].addr, addr - segs_[s].addr);
        const uint32_t upper = newSegment(addr + size, segEnd - addr - size, segs_[s].stream, true);
        segs_[upper].small = segs_[s].small;
        segs_[upper].head = after;
        segs_[upper].tail = segs_[s].tail;
        segs_[s].tail = blocks_[after].prev;
        blocks_[segs_[s].tail].next = kNil;
        blocks_[after].prev = kNil;
        for (uint32_t k = after; k != kNil; k = blocks_[k].next) blocks_[k].seg = upper;
    }
    return true;
}

AllocatorState::FreeStats AllocatorState::freeStats() const {
    FreeStats f;
    for (const Segment& g : segs_) {
        if (!g.alive) continue;
        uint64_t free = 0;
        bool live = false;
        for (uint32_t b = g.head; b != kNil; b = blocks_[b].next) {
            if (blocks_[b].state != BlockState::Inactive) {
                live = true;
                continue;
            }
            free += blocks_[b].size, ++f.fragments;
            f.largest = std::max(f.largest, blocks_[b].size);
        }
        if (live) f.split += free;
    }
    return f;
}

std::vector<StateSegment> AllocatorState::segments() const {
    std::vector<StateSegment> out;
    for (const Segment& g : segs_) {
        if (!g.alive) continue;
        StateSegment s{g.addr, g.size, g.stream, g.expandable, g.small, {}};
        for (uint32_t b = g.head; b != kNil; b = blocks_[b].next) {
            const Block& k = blocks_[b];
            s.blocks.push_back({k.addr, k.size, k.requested, k.state, k.allocEvent});
        }
        out.push_back(std::move(s));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
    return out;
}

} // namespace vs
