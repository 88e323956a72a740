#pragma once
// What a background job computes: the JobRunner's key. Each kind of result has its own key, so two
// different jobs never replace each other's results; a newer request of the same key does.
#include <QHashFunctions>

#include <cstdint>

namespace vs::ui {

enum class JobKey : uint8_t {
    Load,               // CaptureLoader: a file into an analysis
    LiveUpdate,         // LiveController: what a live recording appended
    Growth,             // Session: a device's growth analysis (lifetimes, regions, findings), once
    Peak,               // Session: what makes a device's peak, once
    Leaks,              // LeaksPanel: the diagnosis of a window or region
    Fragmentation,      // FragmentationOverlay: largest free block and fragments per device
    MemoryMap,          // MemoryMapView: the occupancy grid
    BlockMap,           // BlockMapPanel: the allocator state at the chosen moment
    BlockMapCategories, // BlockMapPanel: what each block is, for colouring by category
    AllocationBands,    // AllocationBandsView: the stacked-band layout
    Composition,        // CompositionView: categories over time
    RetentionPick,      // RetentionPanel: which graph holds the most suspicious memory
    RetentionGraph,     // RetentionPanel: one graph's groups and dominators
    WhatIf,             // WhatIfPanel: one simulation
    WhatIfSweep,        // WhatIfPanel: the sweep of common settings
    Compare,            // CompareView: the diff of two captures
    Ranks,              // RanksWindow: reading every rank's capture
};

inline size_t qHash(JobKey key, size_t seed = 0) noexcept {
    return ::qHash(uint8_t(key), seed);
}

} // namespace vs::ui
