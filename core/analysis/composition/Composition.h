#pragma once
// What a device's memory is made of at a moment, top to bottom as nvidia-smi would add it up:
// PyTorch's allocated bytes by category, PyTorch's cache (reserved but free), what was allocated
// outside PyTorch by library (a recording with both levels), and the gap to the driver's figure;
// the part of allocated and cache that CUDA graph private pools hold.
// Computed once per capture in the background; `at` is a lookup.
#include "analysis/categories/Categories.h"
#include "analysis/categories/GraphPoolUse.h"
#include "analysis/categories/OutsideTorch.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vs {

class CaptureAnalysis;

struct CompositionAt {
    int device = 0;
    int64_t timeUs = 0;
    std::array<int64_t, kCategoryCount> categories{}; // block bytes (they add up to allocated)
    std::array<int64_t, kCategoryCount> requested{};  // the tensors' own bytes
    int64_t allocated = 0, reserved = 0;
    int64_t cache() const { return reserved - allocated; }
    std::vector<std::pair<std::string, int64_t>> outside; // by library, largest first
    int64_t torchMatched = 0;                             // the CUDA level's bytes matched to PyTorch
    bool hasCudaLevel = false;
    std::optional<GapSample> driver; // the latest driver sample at or before the moment
    // CUDA graph private pools: part of the categories (in use) and of the cache (free)
    std::optional<GraphPoolLevel> graphPools;
};

class Composition {
  public:
    static std::shared_ptr<const Composition> compute(const CaptureAnalysis& a);
    const CaptureCategories& categories() const { return categories_; }
    const std::vector<DeviceOutside>& outside() const { return outside_; }
    const DeviceOutside* outsideOf(int ordinal) const;
    bool hasGraphPools(size_t device) const { return !graphPools_[device].empty(); }
    CompositionAt at(const CaptureAnalysis& a, size_t device, int64_t timeUs,
                     bool withRequested = false) const;

  private:
    CaptureCategories categories_;
    std::vector<DeviceOutside> outside_;
    std::vector<GraphPoolUse> graphPools_; // by device
};

} // namespace vs
