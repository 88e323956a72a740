#pragma once
// The CUPTI agent's book of stream-ordered memory pools (writer thread): turns pool operations and
// the pool sizes CUPTI's activity records report into segment events, so that reserved memory equals
// each pool's size after every pool operation, without a transient dip or peak in the common cases.
//
// A pool allocation is its own segment at its real address. When it is freed and the pool keeps the
// memory, the segment stays, free ("kept"): that is where the pool's cached bytes are; an allocation
// of the same size at the same address later reuses it with no segment event. What the pool holds
// beyond its segments is a free "cache" segment at a synthetic address (model/PoolCache.h). When the
// pool shrinks, kept segments go first (most recently freed first), then the cache.
#include "NativeOp.h"
#include "model/PoolCache.h"

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace vs::cupti {

struct PoolSample; // NativeRecorder.h
struct PoolChange;

class PoolLedger {
  public:
    // Appends `op` to `out`, with the segment events the pools make of it; `sample` is the pool's
    // size after the operation (null for operations outside pools or whose pool has no size).
    void apply(const NativeOp& op, const PoolSample* sample, std::vector<NativeOp>& out);
    void change(const PoolChange& c, std::vector<NativeOp>& out); // trimmed or destroyed

    struct FreeSegment {
        uint64_t addr, size;
        bool expandable; // the cache segments are mapped ranges; kept segments are allocations
        int device;
    };
    std::vector<FreeSegment> freeSegments() const; // for the final state

  private:
    struct Book {
        uint64_t base = 0;                 // of its cache segment
        int device = 0;                    // a pool belongs to one device
        uint64_t bytes = 0;                // its segments, live and kept
        uint64_t cache = 0;                // the cache segment's mapped size
        std::map<uint64_t, uint64_t> kept; // order kept in -> address
    };
    struct Segment {
        uint64_t pool, size;
        uint64_t keptAt = 0; // 0: live; else the order it was kept in
    };
    Book& book(uint64_t pool, int device = -1); // device: known when the pool is first seen
    void releaseOverlapping(uint64_t addr, uint64_t size, int64_t timeUs, std::vector<NativeOp>& out);
    void release(std::map<uint64_t, Segment>::iterator it, int64_t timeUs, std::vector<NativeOp>& out);
    void shrinkTo(uint64_t pool, uint64_t poolSize, int64_t timeUs, std::vector<NativeOp>& out);
    void releaseKept(uint64_t pool, uint64_t poolSize, int64_t timeUs, std::vector<NativeOp>& out);
    std::optional<NativeOp> resizeCache(uint64_t pool, uint64_t poolSize, int64_t timeUs);

    std::map<uint64_t, Book> pools_;       // by pool base address
    std::map<uint64_t, Segment> segments_; // by address: pool allocations, live and kept
    uint64_t keptCount_ = 0;
};

} // namespace vs::cupti
