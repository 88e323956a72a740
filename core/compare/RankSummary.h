#pragma once
// What the rank view keeps of one rank's capture once it is analysed: peaks, final values, growth,
// OOMs, its iterations and a fixed-size profile of allocated/reserved over time (the heatmap's row).
// Small (a few tens of KB) so that 1024 ranks fit; the full analysis is dropped and reopened on
// demand.
#include "analysis/CaptureAnalysis.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace vs {

struct RankSummary {
    static constexpr size_t kBins = 2048; // per rank, over its own first..last event

    int rank = -1; // from the file name (rank3, rank_03, rank-3), else numbered by RankSet
    std::string path;
    std::string error; // why it could not be read; the other fields are then empty
    int device = 0;    // the device with the longest trace (the rank's own GPU)
    size_t events = 0;
    int64_t firstUs = 0, lastUs = 0;
    int64_t peakAllocated = 0, peakReserved = 0, finalAllocated = 0, finalReserved = 0;
    // Allocated at the start of the last iteration minus at the end of the first (the first makes
    // one-time memory such as the optimizer's state); with two iterations, from the start of the
    // first; without iterations: final minus the allocated before the first event.
    int64_t growth = 0;
    uint32_t ooms = 0;
    static constexpr size_t kMaxSlots = 4096; // per-iteration figures kept, at most

    std::string marker; // what marks its iterations
    size_t iterations = 0;
    // Per slot of `stepsPerSlot` consecutive iterations (1 until a run has more than kMaxSlots
    // iterations, then the least power of two that fits): when its first iteration begins and the
    // highest allocated in it. Bounds a summary's size whatever the run's length.
    uint32_t stepsPerSlot = 1;
    std::vector<int64_t> stepUs;
    std::vector<int64_t> stepPeak;         // highest allocated
    std::vector<int64_t> stepPeakReserved; // highest reserved
    std::vector<int64_t> binAllocated;     // highest allocated in each of kBins equal slices of time
    std::vector<int64_t> binReserved;

    bool ok() const { return error.empty(); }
    // The memory it holds: its series and strings (RankBudget charges it).
    uint64_t heldBytes() const;
    // The time slice of `us` (clamped), and the slice's start.
    size_t binOf(int64_t us) const;
    int64_t binStartUs(size_t bin) const;
};

// The rank a file name gives ("trace_rank12.pickle" -> 12), or -1.
int rankFromPath(const std::string& path);

// Summarises an analysed capture's longest device.
RankSummary summariseRank(const CaptureAnalysis& a, const std::atomic<bool>* cancel = nullptr);

} // namespace vs
