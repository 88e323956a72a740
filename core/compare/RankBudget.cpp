#include "RankBudget.h"

#include "load/AnalysisBudget.h"
#include "util/Format.h"

namespace vs {

void RankBudget::charge(uint64_t bytes) {
    const uint64_t total = used_ += bytes;
    const size_t read = ++charged_;
    if (total <= budget_) return;
    analysisOverBudget("reading " + std::to_string(files_) + " ranks",
                       "their summaries (the first " + std::to_string(read) + " hold " +
                           humanBytes(int64_t(total)) + ")",
                       budget_);
}

} // namespace vs
