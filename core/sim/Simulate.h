#pragma once
// Runs one configuration over a request stream: the what-if engine's entry point.
#include "SimConfig.h"
#include "SimInput.h"
#include "SimResult.h"

#include <atomic>
#include <cstdint>

namespace vs {

struct SimOptions {
    uint64_t capacity = 0;  // bytes the allocator may reserve on the device; 0 = unlimited
    bool keepSeries = true; // the per-request series (a sweep needs only the figures)
    const std::atomic<bool>* cancel = nullptr;
};

// Throws Cancelled.
SimResult simulate(const SimInput& in, const SimConfig& config, const SimOptions& options = {});

} // namespace vs
