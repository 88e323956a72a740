#include "analysis/replay/TimeFold.h"

#include "util/TimeOrigin.h"

#include <algorithm>
#include <utility>

namespace vs {

TimeFold::TimeFold(std::vector<IdleGap> gaps, double width) : gaps_(std::move(gaps)), width_(width) {
    double removed = 0; // seconds of axis taken out by the gaps before this one
    for (const IdleGap& g : gaps_) {
        axisStart_.push_back(g.from - removed);
        removed += (g.to - g.from) - width_;
    }
}

// The last gap starting at or before `seconds`, or -1.
static ptrdiff_t gapBefore(const std::vector<double>& starts, double x) {
    return ptrdiff_t(std::upper_bound(starts.begin(), starts.end(), x) - starts.begin()) - 1;
}

double TimeFold::toAxis(double seconds) const {
    const auto i = std::upper_bound(gaps_.begin(), gaps_.end(), seconds,
                                    [](double s, const IdleGap& g) { return s < g.from; }) -
                   gaps_.begin() - 1;
    if (i < 0) return seconds;
    const IdleGap& g = gaps_[size_t(i)];
    const double a = axisStart_[size_t(i)];
    if (seconds <= g.to) return a + (seconds - g.from) * width_ / (g.to - g.from);
    return a + width_ + (seconds - g.to);
}

double TimeFold::toSeconds(double axis) const {
    const ptrdiff_t i = gapBefore(axisStart_, axis);
    if (i < 0) return axis;
    const IdleGap& g = gaps_[size_t(i)];
    const double into = axis - axisStart_[size_t(i)];
    if (into <= width_) return g.from + into * (g.to - g.from) / width_;
    return g.to + (into - width_);
}

std::vector<TimeFold::Piece> TimeFold::pieces(double a0, double a1) const {
    std::vector<Piece> out;
    double at = a0;
    for (size_t i = 0; i < gaps_.size() && at < a1; ++i) {
        const double gapFrom = axisStart_[i], gapTo = gapFrom + width_;
        if (gapTo <= at) continue;
        if (gapFrom > at) { // the unfolded stretch before this gap
            const double to = std::min(gapFrom, a1);
            out.push_back({at, to, toSeconds(at), toSeconds(to), false});
            at = to;
        }
        if (at < a1 && at < gapTo) {
            const double to = std::min(gapTo, a1);
            out.push_back({at, to, toSeconds(at), toSeconds(to), true});
            at = to;
        }
    }
    if (at < a1) out.push_back({at, a1, toSeconds(at), toSeconds(a1), false});
    return out;
}

std::vector<IdleGap> idleGaps(std::span<const CompactSeries* const> times, int64_t originUs) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const CompactSeries* t : times)
        if (!t->empty()) first = std::min(first, t->front()), last = std::max(last, t->back());
    if (first >= last) return {};
    // Longer than a tenth of the span and than a second: microseconds, unsigned (hostile times span
    // the whole 64-bit range; the differences below are of ordered values).
    const uint64_t least = std::max<uint64_t>((uint64_t(last) - uint64_t(first)) / 10, 1'000'000);
    auto apart = [least](int64_t from, int64_t to) {
        return to > from && uint64_t(to) - uint64_t(from) > least;
    };
    // Each device's active stretches (between its own long pauses); idle is where no device is active.
    std::vector<std::pair<int64_t, int64_t>> active;
    for (const CompactSeries* t : times) {
        if (t->empty()) continue;
        int64_t from = t->front(), previous = from;
        t->forEachSpan(0, t->size(), [&](size_t, std::span<const int64_t> values) {
            for (int64_t v : values) {
                if (apart(previous, v)) active.emplace_back(from, previous), from = v;
                previous = v;
            }
        });
        active.emplace_back(from, previous);
    }
    std::sort(active.begin(), active.end());
    std::vector<IdleGap> gaps;
    int64_t reach = active.front().second;
    for (const auto& [from, to] : active) {
        if (apart(reach, from)) gaps.push_back({secondsSince(originUs, reach), secondsSince(originUs, from)});
        reach = std::max(reach, to);
    }
    return gaps;
}

TimeFold foldIdleGaps(std::span<const CompactSeries* const> times, int64_t originUs) {
    std::vector<IdleGap> gaps = idleGaps(times, originUs);
    if (gaps.empty()) return {};
    double first = 0, last = 0, idle = 0;
    bool any = false;
    for (const CompactSeries* t : times)
        if (!t->empty()) {
            const double a = secondsSince(originUs, t->front()), b = secondsSince(originUs, t->back());
            first = any ? std::min(first, a) : a, last = any ? std::max(last, b) : b, any = true;
        }
    for (const IdleGap& g : gaps) idle += g.to - g.from;
    // each gap 2 % of what is drawn: the activity plus the gaps' own widths
    const double busy = (last - first) - idle;
    const double width = std::max(busy, 1e-6) * 0.02 / (1 - 0.02 * double(gaps.size())); // at most 9 gaps
    for (const IdleGap& g : gaps)
        if (width >= g.to - g.from) return {}; // nothing to gain (many gaps around little activity)
    return TimeFold(std::move(gaps), width);
}

} // namespace vs
