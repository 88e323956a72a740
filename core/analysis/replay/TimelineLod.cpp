#include "analysis/replay/TimelineLod.h"

#include <algorithm>
#include <cmath>

namespace vs {

TimelineLod::TimelineLod(const CompactSeries& times, const CompactSeries& values, int64_t initial,
                         int64_t originUs)
    : initial_(initial), origin_(originUs) {
    extend(times, values);
}

// Folds entry i of the level below (its bounds m) into `level`, whose entries cover kFan each.
static void fold(std::vector<TimelineLod::MinMax>& level, size_t i, TimelineLod::MinMax m, size_t fan) {
    if (i % fan == 0) return level.push_back(m);
    TimelineLod::MinMax& last = level.back();
    last.min = std::min(last.min, m.min), last.max = std::max(last.max, m.max);
}

void TimelineLod::extend(const CompactSeries& times, const CompactSeries& values) {
    size_t changed = valueCount_; // the first entry of the level below that is new or grew
    times_ = &times, values_ = &values, valueCount_ = values.size();
    if (values.empty()) return levels_.clear();
    for (size_t k = 0;; ++k) {
        const size_t belowSize = k == 0 ? values.size() : levels_[k - 1].size();
        if (k > 0 && belowSize <= 1) return levels_.resize(k); // the top level has one entry
        if (k == levels_.size()) levels_.emplace_back();
        std::vector<MinMax>& level = levels_[k];
        const size_t first = changed / kFan; // entries before it cover unchanged values only
        // Room for all its entries at once (a live session's later extends grow it geometrically):
        // growing by push_back held the old and the new array together, 1.5x the level at its peak.
        const size_t need = (belowSize + kFan - 1) / kFan;
        if (level.capacity() < need) level.reserve(std::max(need, 2 * level.capacity()));
        level.resize(first);
        if (k == 0) // the values, read a decoded stretch at a time
            values.forEachSpan(first * kFan, belowSize, [&](size_t at, std::span<const int64_t> v) {
                for (size_t j = 0; j < v.size(); ++j) fold(level, at + j, {v[j], v[j]}, kFan);
            });
        else
            for (size_t i = first * kFan; i < belowSize; ++i) fold(level, i, levels_[k - 1][i], kFan);
        changed = first;
    }
}

TimelineLod::MinMax TimelineLod::range(size_t first, size_t last) const {
    MinMax r{(*values_)[first], (*values_)[first]};
    auto take = [&](const MinMax& m) { r.min = std::min(r.min, m.min), r.max = std::max(r.max, m.max); };
    size_t i = first;
    while (i < last) {
        // climb to the widest aligned block starting at i that fits in [i, last)
        size_t width = 1;
        int level = -1;
        while (level + 1 < static_cast<int>(levels_.size()) && i % (width * kFan) == 0 &&
               i + width * kFan <= last)
            width *= kFan, ++level;
        if (level < 0)
            take({(*values_)[i], (*values_)[i]});
        else
            take(levels_[size_t(level)][i / width]);
        i += width;
    }
    return r;
}

size_t TimelineLod::indexAtOrAfter(double t) const {
    const auto us = static_cast<int64_t>(std::ceil(t * 1e6)) + origin_;
    return static_cast<size_t>(std::lower_bound(times_->begin(), times_->end(), us) - times_->begin());
}

std::vector<LodPoint> TimelineLod::query(double t0, double t1, int columns, bool* exact) const {
    std::vector<LodPoint> out;
    if (columns < 1 || !(t1 > t0)) return out;
    const size_t a = indexAtOrAfter(t0), b = indexAtOrAfter(t1);
    auto seconds = [&](size_t i) { return static_cast<double>((*times_)[i] - origin_) / 1e6; };
    const bool fine = b - a <= static_cast<size_t>(columns);
    if (exact) *exact = fine;
    if (fine) { // exact steps: the value in effect at t0, every change inside, and the value at t1
        out.push_back({t0, static_cast<double>(valueBefore(a))});
        for (size_t i = a; i < b; ++i) out.push_back({seconds(i), static_cast<double>((*values_)[i])});
        out.push_back({t1, static_cast<double>(valueBefore(b))});
        return out;
    }
    const double width = (t1 - t0) / columns;
    size_t i = a;
    int64_t carried = valueBefore(a);
    for (int c = 0; c < columns; ++c) {
        const double x = t0 + (c + 0.5) * width;
        const size_t j = c + 1 == columns ? b : std::max(i, indexAtOrAfter(t0 + (c + 1) * width));
        if (j == i) { // no event in this column: the carried value holds
            out.push_back({x, static_cast<double>(carried)});
            continue;
        }
        MinMax m = range(i, j);
        m.min = std::min(m.min, carried), m.max = std::max(m.max, carried);
        const bool rising = (*values_)[j - 1] >= carried; // draw towards where the column ends
        out.push_back({x, static_cast<double>(rising ? m.min : m.max)});
        out.push_back({x, static_cast<double>(rising ? m.max : m.min)});
        carried = (*values_)[j - 1];
        i = j;
    }
    return out;
}

TimelineLod::Band TimelineLod::band(double t0, double t1, int columns) const {
    Band b;
    if (columns < 1 || !(t1 > t0)) return b;
    const size_t first = indexAtOrAfter(t0), last = indexAtOrAfter(t1);
    auto add = [&b](double t, double lo, double hi) {
        b.t.push_back(t), b.lo.push_back(lo), b.hi.push_back(hi);
    };
    if (last - first <= static_cast<size_t>(columns)) {
        b.exact = true;
        for (const auto& p : query(t0, t1, columns)) add(p.t, p.v, p.v);
        return b;
    }
    const double width = (t1 - t0) / columns;
    size_t i = first;
    int64_t carried = valueBefore(first);
    for (int c = 0; c < columns; ++c) {
        const size_t j = c + 1 == columns ? last : std::max(i, indexAtOrAfter(t0 + (c + 1) * width));
        MinMax m{carried, carried};
        if (j > i) {
            const MinMax inside = range(i, j);
            m.min = std::min(m.min, inside.min), m.max = std::max(m.max, inside.max);
            carried = (*values_)[j - 1];
        }
        add(t0 + (c + 0.5) * width, static_cast<double>(m.min), static_cast<double>(m.max));
        i = j;
    }
    return b;
}

} // namespace vs
