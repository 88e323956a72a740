#pragma once
// For an out-of-memory error caused by fragmentation: would PYTORCH_CUDA_ALLOC_CONF's
// expandable_segments:True have served the failed request, and which of the sweep's settings serves
// it with the lowest peak reserved. The simulator replays the run's requests under the largest capacity
// consistent with the recorded failure (defaultCapacity), so "served" means: under that capacity.
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakReport.h"
#include "analysis/growth/OomCause.h"

#include <atomic>
#include <string>

namespace vs {

// One or two sentences for the next step; empty when the capture cannot be simulated.
std::string oomWhatIf(const CaptureAnalysis& a, size_t device, const OomFacts& f,
                      const std::atomic<bool>* cancel = nullptr);

// Adds oomWhatIf's sentences to an OOM diagnosis (its `oom.whatIf` and next step); nothing otherwise.
void addOomWhatIf(const CaptureAnalysis& a, size_t device, LeakReport& rep,
                  const std::atomic<bool>* cancel = nullptr);

} // namespace vs
