// The backward half of AllocatorState: undoing recorded actions, to recover the allocator's state
// before the first recorded event from the snapshot's final segments.
#include "analysis/replay/AllocatorState.h"

namespace vs {

void AllocatorState::enableContainmentIndex() {
    freeIndex_ = std::make_shared<std::map<uint64_t, uint32_t>>();
    for (uint32_t b = 0; b < blocks_.size(); ++b)
        if (segs_[blocks_[b].seg].alive && byAddr_.find(blocks_[b].addr) == b &&
            blocks_[b].state == BlockState::Inactive)
            (*freeIndex_)[blocks_[b].addr] = b;
}

uint32_t AllocatorState::freeBlockContaining(uint64_t addr) const {
    if (freeIndex_) {
        auto it = freeIndex_->upper_bound(addr);
        if (it == freeIndex_->begin()) return kNil;
        const uint32_t b = std::prev(it)->second;
        return addr < blocks_[b].addr + blocks_[b].size ? b : kNil;
    }
    const uint32_t s = segmentContaining(addr, false);
    if (s == kNil) return kNil;
    for (uint32_t b = segs_[s].head; b != kNil; b = blocks_[b].next)
        if (addr >= blocks_[b].addr && addr < blocks_[b].addr + blocks_[b].size)
            return blocks_[b].state == BlockState::Inactive ? b : kNil;
    return kNil;
}

bool AllocatorState::undoAlloc(uint64_t addr) {
    const uint32_t b = blockAt(addr);
    if (b == kNil || blocks_[b].state != BlockState::ActiveAllocated) return false;
    // Before the alloc this memory was part of a free block, and free blocks are always coalesced,
    // so merging with free neighbours restores exactly the block the allocator chose from.
    setState(b, BlockState::Inactive);
    mergeFree(b);
    return true;
}

bool AllocatorState::undoFreeRequested(uint64_t addr) {
    const uint32_t b = blockAt(addr);
    if (b == kNil || blocks_[b].state == BlockState::Inactive) return false;
    setState(b, BlockState::ActiveAllocated);
    return true;
}

bool AllocatorState::undoFreeCompleted(uint64_t addr, uint64_t requested) {
    uint32_t f = freeBlockContaining(addr);
    if (f == kNil) return false;
    if (blocks_[f].addr < addr) f = splitAt(f, addr - blocks_[f].addr);
    // The freed block was at least the rounded request. Whether it also held an unsplit remainder
    // is decided later by undoAlloc when its alloc is in the trace; for a block allocated before
    // recording, a free tail too small to exist on its own must have been part of it.
    uint64_t size = rules_.roundSize(requested);
    const Segment& g = segs_[blocks_[f].seg];
    const uint64_t have = blocks_[f].size;
    bool ok = true;
    if (have < size) size = have, ok = false;
    const uint64_t tail = have - size;
    const bool splits = g.small || g.expandable || rules_.expandableSegments;
    if (tail && !splits && tail <= rules_.maxUnsplitRemainder(size)) size = have;
    if (size < have) splitAt(f, size);
    blocks_[f].requested = requested;
    blocks_[f].allocEvent = kNoEvent;
    setState(f, BlockState::ActivePendingFree);
    return ok;
}

} // namespace vs
