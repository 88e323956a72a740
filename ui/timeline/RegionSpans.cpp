#include "timeline/RegionSpans.h"

#include <algorithm>

namespace vs::ui {

void RegionSpans::set(QVector<RegionSpan> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const RegionSpan& a, const RegionSpan& b) { return a.from < b.from; });
    widest_ = 0;
    for (const RegionSpan& s : spans) widest_ = std::max(widest_, s.to - s.from);
    spans_ = std::move(spans);
}

std::optional<RegionSpan> RegionSpans::at(double seconds) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), seconds,
                               [](double t, const RegionSpan& s) { return t < s.from; });
    const RegionSpan* best = nullptr;
    while (it != spans_.begin()) { // back over the spans starting at or before `seconds`
        --it;
        if (it->from < seconds - widest_) break;
        if (seconds <= it->to && (!best || it->to - it->from < best->to - best->from)) best = &*it;
    }
    return best ? std::optional<RegionSpan>(*best) : std::nullopt;
}

} // namespace vs::ui
