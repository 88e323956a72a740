#pragma once
// What released memory that had accumulated: Python's garbage collector (its frames in the free's
// native stack, or inside the recorder's `gc.collect` annotation), the end of an annotated phase,
// a function returning (the allocating function is gone from the free's stack), or a line of the
// program (the same one each time, for an epoch-end hook or a list rebuilt).
#include "analysis/growth/Iterations.h"
#include "analysis/replay/Lifetimes.h"
#include "model/Capture.h"

#include <map>
#include <string>
#include <vector>

namespace vs {

struct ReleaseCause {
    uint32_t event = kNoEvent; // the first free of the release
    bool garbageCollector = false;
    std::string
        text; // "Python's garbage collector ran", "the end of a 'epoch'", "evaluate() returned (at ...)"
};

class ReleaseCauses {
  public:
    ReleaseCauses(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all);
    // The cause of releasing these allocations (indices into the lifetimes), all freed at about once.
    ReleaseCause of(const std::vector<uint32_t>& allocations, const Iterations& its);
    // True when this stack's memory (a release's top stack) was released three or more times at
    // varying places (no one line of the program lets go of it: the garbage collector finding a
    // cycle when it runs).
    bool variedSites(StackId stack) const;
    // True when a free in [from, to) is the garbage collector's (inside a `gc.collect` annotation,
    // or its frames in the free's stack): a cheap test before a release's blocks are known.
    bool collectorBetween(uint32_t from, uint32_t to) const;

  private:
    bool inCollection(int64_t timeUs) const;
    bool collectorFrames(StackId s) const;
    std::string returningFunction(StackId allocStack, StackId freeStack) const;
    std::string phaseEnd(uint32_t event, const Iterations& its) const;

    const Capture& c_;
    const DeviceTrace& t_;
    const std::vector<Allocation>& all_;
    std::vector<std::pair<int64_t, int64_t>> collections_;   // gc.collect annotations: start, end (µs)
    std::map<uint32_t, std::vector<uint32_t>> sitesByStack_; // top stack -> free site of each release
};

} // namespace vs
