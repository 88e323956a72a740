#include "Fragmentation.h"

#include "AllocatorState.h"
#include "io/LoadError.h"

namespace vs {

std::vector<FragmentationSample> fragmentationSeries(const DeviceTrace& t, std::span<const uint64_t> streams,
                                                     const ReplayResult& r, const AllocatorRules& rules,
                                                     size_t samples, const std::atomic<bool>* cancel) {
    std::vector<FragmentationSample> out;
    const size_t n = t.eventCount();
    if (n == 0 || samples == 0) return out;
    AllocatorState st = AllocatorState::fromSegments(r.initialState, rules);
    const double step = double(n) / double(samples);
    size_t applied = 0;
    for (size_t k = 1; k <= samples; ++k) {
        const auto until = std::min(n, static_cast<size_t>(double(k) * step + 0.5));
        if (until == applied && k != samples) continue;
        for (; applied < until; ++applied) Replay::apply(st, t, applied, streams);
        if (cancel && cancel->load()) throw Cancelled();
        const auto f = st.freeStats();
        const Totals& v = st.totals();
        out.push_back(
            {static_cast<uint32_t>(applied), v.reserved - v.active, f.largest, f.fragments, f.split});
    }
    return out;
}

std::vector<size_t> wouldNeedNewSegment(const std::vector<FragmentationSample>& series, uint64_t bytes) {
    std::vector<size_t> out;
    for (size_t i = 0; i < series.size(); ++i)
        if (series[i].largestFree < bytes && series[i].cachedFree >= int64_t(bytes)) out.push_back(i);
    return out;
}

} // namespace vs
