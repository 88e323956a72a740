#include "RankOutliers.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vs {
namespace {

// "grows by 28 MiB", "shrinks by 1003 KiB", "stays level": a negative growth read as a sentence
std::string change(int64_t bytes) {
    if (bytes == 0) return "stays level";
    return (bytes > 0 ? "grows by " : "shrinks by ") + humanBytes(std::llabs(bytes));
}

// The lower median: with two ranks it is the smaller value, so that of a clean rank and a leaking
// one the leaking one stands out (a leak only adds memory).
int64_t median(std::vector<int64_t> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + (v.size() - 1) / 2, v.end());
    return v[(v.size() - 1) / 2];
}

// The distance from the median beyond which a value stands out.
double limit(const std::vector<int64_t>& v, int64_t med, int64_t medianPeak) {
    std::vector<int64_t> dev;
    for (int64_t x : v) dev.push_back(std::llabs(x - med));
    const double robustSigma = 1.4826 * double(median(dev));
    return std::max({3 * robustSigma, 0.05 * double(medianPeak), double(1 << 20)});
}

std::string percentOf(int64_t part, int64_t whole) {
    if (whole <= 0) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.0f %%)", 100.0 * double(std::llabs(part)) / double(whole));
    return buf;
}

std::string label(const RankSummary& r) {
    return "rank " + std::to_string(r.rank);
}

} // namespace

std::vector<RankOutlier> findOutliers(const std::vector<RankSummary>& ranks, int64_t* medianPeak,
                                      int64_t* medianGrowth) {
    std::vector<int64_t> peaks, growths, ooms;
    std::vector<size_t> index;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (ranks[i].ok() && ranks[i].events > 0)
            peaks.push_back(ranks[i].peakAllocated), growths.push_back(ranks[i].growth),
                ooms.push_back(ranks[i].ooms), index.push_back(i);
    const int64_t mp = median(peaks), mg = median(growths), mo = median(ooms);
    *medianPeak = mp, *medianGrowth = mg;
    std::vector<RankOutlier> out;
    if (peaks.size() < 2) return out;
    const double peakLimit = limit(peaks, mp, mp), growthLimit = limit(growths, mg, mp);
    const std::string ofN = " of " + std::to_string(peaks.size()) + " ranks";
    for (size_t k = 0; k < index.size(); ++k) {
        const RankSummary& r = ranks[index[k]];
        RankOutlier o;
        o.index = index[k];
        std::vector<std::string> parts;
        if (double(std::llabs(r.peakAllocated - mp)) > peakLimit) {
            o.peak = true;
            const int64_t d = r.peakAllocated - mp;
            parts.push_back("peak " + humanBytes(r.peakAllocated) + ", " + humanBytes(std::llabs(d)) +
                            percentOf(d, mp) + (d > 0 ? " above" : " below") + " the median" + ofN + " (" +
                            humanBytes(mp) + ")");
        }
        if (double(std::llabs(r.growth - mg)) > growthLimit) {
            o.growth = true;
            parts.push_back(change(r.growth) + " over its iterations where the median rank " + change(mg));
        }
        if (r.ooms > 0 && mo == 0) {
            o.oom = true;
            parts.push_back("ran out of memory " + std::to_string(r.ooms) +
                            " time(s) where the median rank did not");
        }
        if (parts.empty()) continue;
        o.sentence = label(r) + ": " + parts[0];
        for (size_t i = 1; i < parts.size(); ++i)
            o.sentence += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
        out.push_back(std::move(o));
    }
    // the most different first
    std::sort(out.begin(), out.end(), [&](const RankOutlier& x, const RankOutlier& y) {
        const auto far = [&](const RankOutlier& o) {
            return std::max(std::llabs(ranks[o.index].peakAllocated - mp),
                            std::llabs(ranks[o.index].growth - mg));
        };
        return far(x) > far(y);
    });
    return out;
}

} // namespace vs
