#pragma once
// Many ranks of one distributed job (one capture per rank, as torchtitan, Megatron and verl dump
// them): their summaries side by side and the ranks that stand out. Loading runs on every core, one
// capture per worker at a time, and keeps only each rank's summary, so memory stays bounded by the
// workers' captures whatever the number of ranks.
#include "RankFolder.h"
#include "RankSummary.h"
#include "load/AnalysisBudget.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace vs {

struct RankOutlier {
    size_t index = 0; // into RankSet::ranks
    bool peak = false, growth = false, oom = false;
    std::string sentence; // "rank 3: peak 5.2 GiB, 1.8 GiB (53 %) above the median of 8 ranks (3.4 GiB)"
};

struct RankSet {
    std::vector<RankSummary> ranks; // by rank
    std::vector<RankOutlier> outliers;
    std::vector<std::string> warnings; // stale summaries (RankInputs.h)
    int64_t medianPeak = 0, medianGrowth = 0;
    int64_t firstUs = 0, lastUs = 0; // the span of every rank together

    size_t readable() const;
};

struct RankLoadOptions {
    unsigned threads = 0;                                    // 0: the cores there are
    std::function<void(size_t done, size_t total)> progress; // called from the workers
    const std::atomic<bool>* cancel = nullptr;
    uint64_t maxMemory = analysisBudget(); // what the whole set may hold (--max-memory; RankBudget.h)
};

// Files that do not name their rank are numbered after the highest named one, in the order given;
// when no number is left (a summary names rank 2^31 - 1) they keep an error instead of overflowing.
void numberUnnamedRanks(std::vector<RankSummary>& ranks);

// How many workers read `files` files when `threads` are asked for (0: the cores there are): never
// more than the files, nor more than a few per core (more only wait on one another; `--threads
// 60000` aborted when the system refused the threads).
unsigned rankWorkers(unsigned threads, size_t files);

// Reads and summarises every file (an unreadable one keeps its error and is left out of the
// statistics); files that name no rank are numbered after the highest named one, in the order
// given. Summary files (.vsrank) are read first, and a capture given along with its summary is not
// read (RankInputs.h). Throws Cancelled, and LoadError when the set would hold more than
// `options.maxMemory`.
RankSet loadRanks(const std::vector<std::string>& paths, const RankLoadOptions& options = {});

// Sorts by rank, computes the medians, the common span and the outliers (loadRanks does this).
void finishRankSet(RankSet& set);

} // namespace vs
