#pragma once
// The memory a set of ranks holds, charged summary by summary against one budget (--max-memory, the
// loads' own: load/AnalysisBudget.h) as the workers read them. 20,000 files of 160 bytes each, every
// one expanding to the most a summary may hold, took 6.4 GB whatever --max-memory said (issue 47):
// the set is now refused in a sentence as soon as what it holds would pass the budget.
#include "RankSummary.h"

#include <atomic>
#include <cstdint>

namespace vs {

class RankBudget {
  public:
    RankBudget(uint64_t budget, size_t files) : budget_(budget), files_(files) {}
    // Adds `bytes` (RankSummary::heldBytes and what else is kept of the file); throws LoadError
    // naming the set's size and the budget once the total passes it.
    void charge(uint64_t bytes);
    uint64_t used() const { return used_.load(); }

  private:
    uint64_t budget_;
    size_t files_;
    std::atomic<uint64_t> used_{0};
    std::atomic<size_t> charged_{0};
};

} // namespace vs
