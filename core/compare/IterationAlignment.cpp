#include "IterationAlignment.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <unordered_map>

namespace vs {
namespace {

// The number each start's annotation carries ("ProfilerStep#12" -> 12), or nothing when a start has
// none (a marker found in the data, an unnumbered annotation).
std::vector<int64_t> stepNumbers(const Capture& c, const DeviceTrace& t, const std::string& marker,
                                 const std::vector<uint32_t>& starts) {
    std::unordered_map<uint32_t, int64_t> atEvent;
    for (const auto& an : c.annotations) {
        if (!an.start || an.device != t.device) continue;
        const auto name = c.strings.text(an.name);
        const auto base = withoutNumber(name);
        if (base.size() == name.size() || base != marker) continue;
        int64_t n = 0;
        std::from_chars(name.data() + base.size(), name.data() + name.size(), n);
        const auto e =
            uint32_t(std::lower_bound(t.timeUs.begin(), t.timeUs.end(), an.timeUs) - t.timeUs.begin());
        atEvent.emplace(e, n);
    }
    std::vector<int64_t> out;
    for (uint32_t s : starts) {
        auto it = atEvent.find(s);
        if (it == atEvent.end()) return {};
        out.push_back(it->second);
    }
    return out;
}

} // namespace

double IterationCurve::growthPerIteration() const {
    return live.size() < 2 ? 0 : double(live.back() - live.front()) / double(live.size() - 1);
}

IterationCurve iterationCurve(const DiffSide& side, const Iterations& its) {
    IterationCurve k;
    k.marker = its.marker, k.fromAnnotations = its.fromAnnotations;
    if (side.empty()) return k;
    const uint32_t last = side.lastEvent();
    k.starts = startsWithin(its, side.first, last);
    if (k.fromAnnotations)
        k.numbers = stepNumbers(side.analysis->capture(), side.trace(), k.marker, k.starts);
    const auto& r = side.replay();
    for (size_t i = 0; i < k.starts.size(); ++i) {
        const uint32_t from = k.starts[i], to = i + 1 < k.starts.size() ? k.starts[i + 1] - 1 : last;
        k.peak.push_back(r.allocated.range(from, to + 1).max);
        k.reservedPeak.push_back(r.reserved.range(from, to + 1).max);
        k.live.push_back(r.allocated[to]);
    }
    return k;
}

size_t IterationAlignment::largestPeakDelta() const {
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < pairs.size(); ++i)
        if (best == SIZE_MAX || std::llabs(peakDelta(i)) > std::llabs(peakDelta(best))) best = i;
    return best;
}

IterationAlignment alignIterations(IterationCurve a, IterationCurve b) {
    IterationAlignment al;
    // by number when both sides number their steps and share most of them (two runs of one
    // program); two phases of one run number different steps and pair by order instead
    if (!a.numbers.empty() && !b.numbers.empty() && a.marker == b.marker) {
        std::unordered_map<int64_t, size_t> inB;
        for (size_t j = 0; j < b.numbers.size(); ++j) inB.emplace(b.numbers[j], j);
        for (size_t i = 0; i < a.numbers.size(); ++i)
            if (auto it = inB.find(a.numbers[i]); it != inB.end()) al.pairs.emplace_back(i, it->second);
        if (2 * al.pairs.size() >= std::min(a.count(), b.count()) && !al.pairs.empty())
            al.byNumber = true, al.how = "by the step number of '" + a.marker + "'";
        else
            al.pairs.clear();
    }
    if (!al.byNumber) {
        for (size_t i = 0; i < std::min(a.count(), b.count()); ++i) al.pairs.emplace_back(i, i);
        al.how = a.marker == b.marker
                     ? "by the order of the iterations marked by '" + a.marker + "'"
                     : "by order: iterations marked by '" + a.marker + "' and by '" + b.marker + "'";
    }
    if (a.count() == 0 || b.count() == 0) al.how = "not aligned: no iterations found on one side";
    al.a = std::move(a), al.b = std::move(b);
    return al;
}

} // namespace vs
