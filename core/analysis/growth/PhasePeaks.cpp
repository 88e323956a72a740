#include "analysis/growth/PhasePeaks.h"

#include <algorithm>

namespace vs {

PhasePeaks phasePeaks(const ReplayResult& r, const Iterations& its) {
    PhasePeaks p;
    p.epochs = its.phaseStarts.size() >= 2;
    const auto& bounds = p.epochs ? its.phaseStarts : its.starts;
    p.marker = p.epochs ? its.phaseMarker : its.marker;
    const auto n = uint32_t(r.allocated.size());
    if (n == 0) return p;
    p.starts.push_back(0);
    p.firstMarked = bounds.empty() || bounds.front() > 0 ? 1 : 0; // phase 0: before any marker
    for (uint32_t b : bounds)
        if (b > p.starts.back() && b < n) p.starts.push_back(b);
    for (size_t i = 0; i < p.starts.size(); ++i) {
        const uint32_t to = i + 1 < p.starts.size() ? p.starts[i + 1] : n;
        p.peaks.push_back(r.allocated.range(p.starts[i], to).max);
    }
    return p;
}

double PhasePeaks::worstRisePercent(size_t* at) const {
    double worst = -1;
    // the first marked phase (warm-up) is compared with nothing, nor what came before it
    for (size_t i = firstMarked + 2; i < peaks.size(); ++i) {
        const double rise =
            peaks[i - 1] > 0 ? 100.0 * double(peaks[i] - peaks[i - 1]) / double(peaks[i - 1]) : 0;
        if (rise > worst) worst = rise, at && (*at = i);
    }
    return worst;
}

} // namespace vs
