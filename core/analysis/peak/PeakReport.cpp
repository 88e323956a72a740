#include "analysis/peak/PeakReport.h"

#include "analysis/stacks/CallLine.h"
#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

#include <algorithm>
#include <cstdio>

namespace vs {

namespace {

// The median of the peaks of training iterations (those outside evaluations), and how many.
std::pair<int64_t, size_t> medianStepPeak(const ReplayResult& r, const Iterations& its,
                                          const PhaseTable& table) {
    std::vector<int64_t> peaks;
    const auto n = uint32_t(r.allocated.size());
    for (size_t i = 0; i < its.starts.size(); ++i) {
        const uint32_t from = its.starts[i], to = i + 1 < its.starts.size() ? its.starts[i + 1] : n;
        if (from >= to || to > n) continue;
        const PhaseKind k = table.rows[table.rowOf(from)].kind;
        if (k == PhaseKind::Evaluation || table.rowOf(from) != table.rowOf(to - 1)) continue;
        peaks.push_back(r.allocated.range(from, to).max);
    }
    if (peaks.size() < 3) return {0, 0}; // too few to call one typical
    std::nth_element(peaks.begin(), peaks.begin() + ptrdiff_t(peaks.size() / 2), peaks.end());
    return {peaks[peaks.size() / 2], peaks.size()};
}

std::string summaryOf(const CaptureAnalysis& a, size_t device, const PeakReport& p) {
    const Capture& c = a.capture();
    char at[32];
    std::snprintf(at, sizeof at, "%.3f s", a.secondsAt(device, p.event));
    std::string s = "Allocated memory peaks at " + humanBytes(p.allocated) + " at " + at;
    const PhaseRow& row = p.phases.rows[p.phase];
    if (p.phases.rows.size() > 1) s += ", in " + row.name;
    if (p.stepRatio() >= 1.05) {
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.1f", p.stepRatio());
        s += std::string(": ") + ratio + "x a typical training step's peak (" +
             humanBytes(p.typicalStepPeak) + ")";
    }
    if (!p.lines.empty() && p.lines.front().bytes > 0) {
        const LineHolder& top = p.lines.front();
        s += "; the largest holder is " + lineText(c, top) + " with " + humanBytes(top.bytes) + " (" +
             std::string(categoryName(top.category)) + ")";
    }
    return s + ".";
}

} // namespace

PeakReport explainPeak(const CaptureAnalysis& a, size_t device) {
    PeakReport p;
    const DeviceTrace& t = a.trace(device);
    const ReplayResult& r = a.replay(device);
    if (t.eventCount() == 0 || r.allocated.size() == 0) {
        p.summary = "No allocation was recorded, so there is no peak.";
        return p;
    }
    p.empty = false;
    const auto cats = a.categories(device);
    const Iterations its = findIterations(a.capture(), t, cats->allocations);
    p.event = uint32_t(r.allocated.argMax(0, r.allocated.size()));
    p.allocated = r.allocated[p.event];
    p.reserved = r.reserved[p.event];
    p.categories = cats->at(p.event);
    p.lines = lineHolders(a.capture(), *cats, p.event);
    p.phases = phaseTable(a.capture(), t, r, its);
    p.phase = p.phases.rowOf(p.event);
    std::tie(p.typicalStepPeak, p.steps) = medianStepPeak(r, its, p.phases);
    p.iterationMarker = its.marker;
    p.summary = summaryOf(a, device, p);
    return p;
}

} // namespace vs
