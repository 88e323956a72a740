#pragma once
// The difference between two captures, or two ranges of one: which call stacks and allocation sites
// hold more or less memory (live at the range's end, and at the range's peak of allocated memory),
// the per-iteration peak and live curves lined up by iteration, what differs in the setting, and a
// verdict sentence. B is compared with A: "grown" means B holds more.
#include "ContextDiff.h"
#include "DiffSide.h"
#include "IterationAlignment.h"

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vs {

enum class DiffChange : uint8_t { Added, Removed, Grown, Shrunk, Same };
std::string_view diffChangeName(DiffChange c);

struct DiffRow {
    std::string_view site;             // "fn (file.py:17)", or words for memory without a stack: a text
                                       // of its CaptureDiff's siteTexts, valid while that diff (or a copy) is
    std::vector<std::string> frames;   // the stack, outermost first (at most kMaxRowFrames: a deeper one
                                       // keeps its two ends around "... N frames ..."; sites: the site
                                       // alone), for the kTextRows largest rows; empty past them
    int64_t liveA = 0, liveB = 0;      // bytes alive at the range's end
    int64_t peakA = 0, peakB = 0;      // bytes alive at the moment of the range's peak allocated
    uint32_t blocksA = 0, blocksB = 0; // blocks alive at the range's end
    uint32_t allocsA = 0, allocsB = 0; // allocations made inside the range
    DiffChange change = DiffChange::Same;

    int64_t liveDelta() const { return liveB - liveA; }
    int64_t peakDelta() const { return peakB - peakA; }
    int64_t magnitude() const; // the larger of |live delta| and |peak delta|: the order of the table
};

struct SideTotals {
    int64_t peak = 0, peakReserved = 0, live = 0; // in the range; live: allocated at its end
    uint32_t peakEvent = 0;
    double seconds = 0;
    size_t events = 0;
};

struct CaptureDiff {
    std::vector<ContextDifference> context; // empty for two ranges of one capture
    SideTotals a, b;
    std::vector<DiffRow> stacks; // largest difference first; unchanged rows left out
    std::vector<DiffRow> sites;  // the same by allocation site
    size_t unchangedStacks = 0;
    IterationAlignment iterations;
    std::string verdict; // one or two sentences
    // The texts the rows' sites name, each held once (shared: a copy of the diff keeps them valid).
    std::shared_ptr<const std::deque<std::string>> siteTexts;
};

// Throws Cancelled when `cancel` becomes true.
CaptureDiff compareCaptures(const DiffSide& a, const DiffSide& b, const std::atomic<bool>* cancel = nullptr);

constexpr size_t kMaxRowFrames = 64;
constexpr size_t kTextRows = 1000;

// The label of memory that no recorded allocation explains (blocks older than the recording).
constexpr const char* kBeforeRecording = "(allocated before recording)";

} // namespace vs
