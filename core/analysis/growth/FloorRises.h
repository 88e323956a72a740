#pragma once
// Where the floor of allocated memory rises and is not given back, whatever the program's loop
// structure. The floor is the lowest allocated in each of a few hundred equal slices of the trace:
// a step's temporaries, a request's KV cache or a forward pass's activations come and go inside
// a slice or across a few, so only memory the program keeps lifts the floor. A monotonic stack
// over the slices holds the floor as seen from the current slice (the minimum of everything
// after each earlier slice): a drop below it releases the part of the rise above the drop (a
// phase ending, a function returning, the collector), what is left at the end is kept to the end.
#include "analysis/replay/StateTypes.h"
#include "util/CompactColumn.h"

#include <cstdint>
#include <vector>

namespace vs {

struct FloorRise {
    uint32_t base = 0;  // event where the floor stood before the rise
    uint32_t start = 0; // first event of the slice where the floor first stood higher
    uint32_t top =
        0; // the floor at a release's top (the lowest point of the slice before it); the end when kept
    uint32_t releasedAt = kNoEvent;    // first event of the slice that fell below the top; kNoEvent: kept
    uint32_t releasedUntil = kNoEvent; // first event of the slice where the floor stopped falling
    int64_t from = 0, to = 0;          // the floor before and at the top
    int64_t rise() const { return to - from; }
};

struct FloorRises {
    uint32_t slices = 0; // how many slices the trace was cut into
    uint32_t eventsPerSlice = 1;
    std::vector<int64_t> floor;      // the lowest allocated in each slice
    std::vector<uint32_t> floorAt;   // the event where each slice is lowest
    std::vector<FloorRise> released; // rises given back later, in the order of their release
    FloorRise kept;                  // from the lowest floor to the last slice (rise() may be 0)
    uint32_t sliceOf(uint32_t event) const { return event / eventsPerSlice; }
};

// The rises of at least `minRise` bytes of one device's allocated series (one value per event).
FloorRises findFloorRises(const CompactSeries& allocated, int64_t minRise);

} // namespace vs
