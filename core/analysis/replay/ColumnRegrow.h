#pragma once
// Growing a live snapshot's columns without a pause. A std::vector that outgrows its capacity
// copies everything at once: at 6.5M events that is ~400 MB and a 250 ms refresh, twice (two
// snapshots alternate). Instead, once a column is half full, a buffer of twice its capacity is
// filled a slice per refresh (the prefix never changes, so it can be copied any time), and swapped
// in, O(1), when the column would overflow: every refresh copies O(its new events). Only the vector
// columns need this: times, addresses, sizes and the replay's series are CompactColumns, which
// grow by chunks that never move.
#include "analysis/replay/Replay.h"
#include "model/DeviceTrace.h"

namespace vs {

class ColumnRegrow {
  public:
    // Before `incoming` more events are appended to `trace` and `replay` (one device of a
    // snapshot): copies a slice into the bigger buffers, or swaps them in when needed now.
    void prepare(DeviceTrace& trace, ReplayResult& replay, size_t incoming);

  private:
    template <class F> void forEach(DeviceTrace& t, ReplayResult& r, F&& f);
    DeviceTrace nextTrace_; // the bigger buffers (only their capacity and a copied prefix)
    ReplayResult nextReplay_;
};

} // namespace vs
