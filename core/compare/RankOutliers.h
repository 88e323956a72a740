#pragma once
// Ranks far from the others: a peak or a growth far from the (lower) median (by more than three robust
// standard deviations and 5 % of the median peak, so that equal ranks with small noise flag
// nothing), or OOMs where the median rank has none. Each said in a sentence.
#include "RankSet.h"

namespace vs {

std::vector<RankOutlier> findOutliers(const std::vector<RankSummary>& ranks, int64_t* medianPeak,
                                      int64_t* medianGrowth);

} // namespace vs
