#include "BaselineGate.h"

#include "CaptureDiff.h"
#include "util/Format.h"

#include <cstdio>

namespace vs {
namespace {

std::string describe(const BaselineCheck& c, double limit) {
    char pct[64];
    std::snprintf(pct, sizeof pct, "%+.1f %%, limit %g %%", c.regressionPercent, limit);
    std::string s = "device " + std::to_string(c.device) + ": peak allocated " + humanBytes(c.peak) +
                    " against " + humanBytes(c.baselinePeak) + " in the baseline";
    if (c.baselineDevice != c.device) s += " (its device " + std::to_string(c.baselineDevice) + ")";
    return s + " (" + pct + ")";
}

std::string largestGrowth(const CaptureAnalysis& run, size_t d, const CaptureAnalysis& base, size_t bd) {
    const CaptureDiff diff = compareCaptures(wholeDevice(base, bd), wholeDevice(run, d));
    for (const auto& r : diff.sites)
        if (r.peakDelta() > 0)
            return std::string(r.site) + " holds " + humanBytes(r.peakDelta()) + " more at the peak (" +
                   humanBytes(r.peakB) + " against " + humanBytes(r.peakA) + ")";
    return "";
}

} // namespace

std::vector<BaselineCheck> baselineGate(const CaptureAnalysis& run, const CaptureAnalysis& baseline,
                                        double maxRegressionPercent) {
    std::vector<BaselineCheck> out;
    if (baseline.deviceCount() == 0) return out;
    for (size_t d = 0; d < run.deviceCount(); ++d) {
        if (run.trace(d).eventCount() == 0) continue;
        BaselineCheck c;
        c.device = run.trace(d).device;
        const int same = baseline.indexOfDevice(c.device);
        const size_t bd =
            same >= 0 && baseline.trace(size_t(same)).eventCount() ? size_t(same) : longestDevice(baseline);
        c.baselineDevice = baseline.trace(bd).device;
        c.peak = run.replay(d).peak.allocated, c.baselinePeak = baseline.replay(bd).peak.allocated;
        c.regressionPercent = c.baselinePeak > 0
                                  ? 100.0 * double(c.peak - c.baselinePeak) / double(c.baselinePeak)
                                  : (c.peak > 0 ? 100.0 : 0.0);
        c.failed = c.regressionPercent > maxRegressionPercent;
        c.sentence = describe(c, maxRegressionPercent);
        if (c.failed) c.largestDifference = largestGrowth(run, d, baseline, bd);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace vs
