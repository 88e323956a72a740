#pragma once
// The caching allocator's segments and blocks, mutable, with the operations a trace records
// (forward) and their inverses (backward, used to recover the state before the first event).
// Blocks of a segment form a doubly linked list in address order; blocks merge only within their
// segment. Every operation returns false when the trace contradicts the state (an inconsistency).
#include "analysis/replay/AllocatorRules.h"
#include "analysis/replay/StateTypes.h"
#include "model/FlatMap.h"

#include <map>
#include <memory>
#include <vector>

namespace vs {

class AllocatorState {
  public:
    explicit AllocatorState(const AllocatorRules& rules) : rules_(rules) {}
    const AllocatorRules& rules() const { return rules_; }
    static AllocatorState fromSegments(const std::vector<StateSegment>& segments,
                                       const AllocatorRules& rules);

    // Forward: what the allocator did. `blockSize` receives the whole block handed out.
    bool alloc(uint64_t addr, uint64_t requested, uint32_t event, uint64_t* blockSize = nullptr);
    bool freeRequested(uint64_t addr);
    bool freeCompleted(uint64_t addr);
    bool segmentAlloc(uint64_t addr, uint64_t size, uint64_t stream);
    bool segmentFree(uint64_t addr, uint64_t size);
    bool map(uint64_t addr, uint64_t size, uint64_t stream);
    bool unmap(uint64_t addr, uint64_t size);

    // Backward: undo one recorded action, given the state just after it.
    // Needed by undoFreeCompleted (and taken by alloc at the first address inside a free block);
    // costs a little on every change.
    void enableContainmentIndex();
    bool undoAlloc(uint64_t addr);
    bool undoFreeRequested(uint64_t addr);
    bool undoFreeCompleted(uint64_t addr, uint64_t requested);
    bool undoSegmentAlloc(uint64_t addr, uint64_t size) { return segmentFree(addr, size); }
    bool undoSegmentFree(uint64_t addr, uint64_t size, uint64_t stream) {
        return segmentAlloc(addr, size, stream);
    }

    const Totals& totals() const { return totals_; }
    struct FreeStats {
        uint64_t largest = 0;   // the largest free block
        uint32_t fragments = 0; // free blocks
        uint64_t split = 0;     // free bytes inside segments that still hold live blocks
    };
    FreeStats freeStats() const;                        // O(blocks)
    template <class F> void forEachBlock(F&& f) const { // f(address, size, state), live segments only
        for (const Segment& g : segs_)
            if (g.alive)
                for (uint32_t b = g.head; b != kNil; b = blocks_[b].next)
                    f(blocks_[b].addr, blocks_[b].size, blocks_[b].state);
    }
    size_t blockCount() const { return blocks_.size() - spareBlocks_.size(); }
    std::vector<StateSegment> segments() const; // in address order

  private:
    struct Block {
        uint64_t addr, size, requested;
        uint32_t seg, prev, next, allocEvent;
        BlockState state;
    };
    struct Segment {
        uint64_t addr, size, stream;
        uint32_t head, tail;
        bool small, expandable, alive;
    };
    static constexpr uint32_t kNil = UINT32_MAX;

    uint32_t newBlock(uint64_t addr, uint64_t size, uint32_t seg, BlockState st);
    void dropBlock(uint32_t b);
    void setState(uint32_t b, BlockState st);
    void setSize(uint32_t b, uint64_t size);
    void linkAfter(uint32_t b, uint32_t after);    // after == kNil: at the head
    uint32_t splitAt(uint32_t b, uint64_t offset); // returns the new upper block
    uint32_t mergeFree(uint32_t b);                // merges with free neighbours, returns the survivor
    uint32_t newSegment(uint64_t addr, uint64_t size, uint64_t stream, bool expandable);
    void dropSegment(uint32_t s);
    void setSegmentRange(uint32_t s, uint64_t addr, uint64_t size);
    uint32_t blockAt(uint64_t addr) const { return byAddr_.find(addr); }
    uint32_t segmentStartingAt(uint64_t addr) const;
    uint32_t segmentContaining(uint64_t addr, bool expandableOnly) const;
    uint32_t freeBlockContaining(uint64_t addr) const;
    void joinSegments(uint32_t left, uint32_t right);

    AllocatorRules rules_;
    std::vector<Block> blocks_;
    std::vector<uint32_t> spareBlocks_;
    std::vector<Segment> segs_;
    std::vector<uint32_t> spareSegs_;
    FlatMap byAddr_; // block start -> block
    // Segment start -> segment, ordered: the segment containing an address is the one starting at or
    // below it, found in O(log n) (a trace may hold hundreds of thousands of segments: a torch.profiler
    // trace makes one per allocation).
    std::map<uint64_t, uint32_t> segStart_;
    FlatMap segEnd_; // segment end -> segment (expandable ranges grow at their ends)
    std::shared_ptr<std::map<uint64_t, uint32_t>> freeIndex_; // start -> inactive block (backward only)
    Totals totals_;
};

} // namespace vs
