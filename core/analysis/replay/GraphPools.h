#pragma once
// Which segments belong to a private memory pool: a CUDA graph's (torch.cuda.graph,
// torch.compile's reduce-overhead and CUDA graph trees) or a torch.cuda.MemPool. The snapshot
// names each segment's pool (`segment_pool_id`, (0, 0) for the default pool), for the segments
// alive when it was taken; a segment at the same address earlier in the trace is the same one
// only from its last segment_alloc on. Their memory is the graph's by design: shown as such,
// never a leak, and it explains reserved memory that allocated does not.
#include "analysis/replay/StateTypes.h"
#include "model/DeviceTrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vs {

struct PoolId {
    uint64_t first = 0, second = 0;
    bool isDefault() const { return first == 0 && second == 0; }
    bool operator==(const PoolId&) const = default;
    std::string text() const; // "(1, 0)"
};

class GraphPools {
  public:
    GraphPools() = default;
    explicit GraphPools(const DeviceTrace& t);
    bool empty() const { return segments_.empty(); }
    // The pool of the segment that starts at `address`, as it is after `event` (default: not a
    // private pool, or not that segment yet).
    PoolId poolOf(uint64_t segmentAddress, uint32_t event) const;
    // Whether an allocation at `address` made at `event` lies in a private pool's segment.
    bool holds(uint64_t address, uint32_t event) const;
    // The pool whose segment holds `address` after `event` (default: none).
    PoolId poolHolding(uint64_t address, uint32_t event) const;
    // Bytes reserved in private pools and allocated in them when the snapshot was taken.
    uint64_t reservedAtEnd() const { return reserved_; }
    uint64_t allocatedAtEnd() const { return allocated_; }
    size_t poolCount() const;

  private:
    struct Segment {
        uint64_t address = 0, size = 0;
        PoolId pool;
        uint32_t since = 0; // its last segment_alloc (or map) event; 0 when it predates the trace
    };
    const Segment* find(uint64_t address) const; // the segment holding `address`, or null
    std::vector<Segment> segments_;              // by address
    uint64_t reserved_ = 0, allocated_ = 0;
};

} // namespace vs
