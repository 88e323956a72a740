#pragma once
// What the allocated memory is made of: every allocation of PyTorch's caching allocator classified
// as a parameter, a gradient, optimizer state, input data, an activation (made in a forward pass and
// freed in a backward one: what autograd saved), a temporary (freed in the phase it was made in),
// or unknown; the reserved-but-free cache is the replay's reserved minus allocated. How each is
// decided, and how sure, is docs/categories.md: tags first (the recorder named the tensor), then
// an allocation from the same call site with the same size as a tagged one, then the phases.
#include "analysis/replay/LifetimeIndex.h"
#include "analysis/replay/Lifetimes.h"
#include "analysis/replay/Replay.h"
#include "analysis/stacks/StackAllocations.h"
#include "model/Capture.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace vs {

enum class Category : uint8_t { Parameter, Gradient, OptimizerState, Input, Activation, Temporary, Unknown };
constexpr size_t kCategoryCount = 7;
enum class CategoryBasis : uint8_t { Tagged, SameSite, Phase, None };

std::string_view categoryName(Category c); // "parameter", "optimizer state", ...

struct DeviceCategories {
    std::vector<Allocation> allocations; // pairAllocations' order (by alloc event)
    StackAllocations byStack;            // the allocations of each stack
    LifetimeIndex byLifetime;            // which of them are alive at a moment
    std::vector<Category> category;      // by allocation
    std::vector<CategoryBasis> basis;    // by allocation
    // Bytes of each category before every kCheckpointEvery-th event, and the frees in event order:
    // at() adds what was made and freed since the checkpoint. (A series of every change was 16 B
    // per change, ~13 B per event, more than a tenth of the window's memory at 100M events.)
    static constexpr uint32_t kCheckpointEvery = 4096;
    std::vector<std::array<int64_t, kCategoryCount>> checkpoints;
    std::vector<uint32_t> frees; // the freed allocations by their freeRequested event
    int64_t before = 0; // allocated before the first event (blocks from before the recording): unknown
    std::array<int64_t, kCategoryCount> at(uint32_t event) const; // bytes after `event`
    std::array<int64_t, kCategoryCount> requestedAt(uint32_t event, const DeviceTrace& t) const;
    // The category of the allocation made by alloc event `event`, or Unknown.
    Category ofAllocEvent(uint32_t event) const;
    // The category holding most of these allocations' bytes (indices into `allocations`).
    Category dominant(const std::vector<uint32_t>& indices) const;
};

struct CaptureCategories {
    std::vector<std::shared_ptr<const DeviceCategories>> devices; // CaptureAnalysis::categories(d), by device
    bool phases = false;                                          // the capture has phase annotations
    bool tags = false;                                            // ... and tags
};

// One device: `allocations` from pairAllocations(trace, replay). Callers with a CaptureAnalysis ask
// it (CaptureAnalysis::categories), which classifies each device once and shares the result.
DeviceCategories classifyDevice(const Capture& c, size_t device, const ReplayResult& replay);

} // namespace vs
