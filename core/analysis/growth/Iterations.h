#pragma once
// Where a training loop's iterations (and, when marked, its phases such as epochs) begin, as
// event indices of one device's trace. Training loops repeat: a step marker annotated by the
// program (`record_function`, `vramscope.mark`, torch.profiler's numbered `ProfilerStep#N`), or
// failing that an allocation every step makes and frees again, tells the iterations apart.
#include "analysis/replay/Lifetimes.h"
#include "model/Capture.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

struct Iterations {
    std::vector<uint32_t> starts;      // event index where each iteration begins, ascending
    std::string marker;                // what marks them: an annotation name, or an allocation site
    bool fromAnnotations = false;      // marked by the program rather than found in the data
    std::vector<uint32_t> phaseStarts; // a less frequent marker (epochs), when the program marks one
    std::string phaseMarker;

    size_t count() const { return starts.size(); }
    // 0 before the first start (warm-up), k for events in the k-th iteration (1-based).
    size_t indexOf(uint32_t event) const;
};

// A numbered annotation's repeated name: "ProfilerStep#12" -> "ProfilerStep#", "epoch 3" -> "epoch ";
// other names unchanged.
std::string_view withoutNumber(std::string_view name);

// Annotations the garbage-collection marker of the recorder writes around each collection.
constexpr std::string_view kGcAnnotation = "gc.collect";

// The iteration starts inside [first, last].
std::vector<uint32_t> startsWithin(const Iterations& its, uint32_t first, uint32_t last);

// In how many iterations of `starts` (as Iterations::indexOf numbers them; 0 is before the first
// start) these allocations were made, each iteration counted once; the one before the first start
// only if `countBeforeFirst`.
size_t iterationsMaking(const std::vector<Allocation>& all, std::span<const uint32_t> allocations,
                        const std::vector<uint32_t>& starts, bool countBeforeFirst);

Iterations findIterations(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all);

} // namespace vs
