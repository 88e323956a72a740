#pragma once
// Level of detail for a step series (one value after each event): a min/max pyramid over event
// indices, so that drawing any time range at any width costs O(columns * log n) and returns at
// most two points per pixel column while keeping every column's true minimum and maximum.
#include "util/CompactColumn.h"

#include <cstdint>
#include <span>
#include <vector>

namespace vs {

struct LodPoint {
    double t; // seconds since the time origin
    double v;
};

class TimelineLod {
  public:
    // `times` are µs (non-decreasing), `values[i]` holds after event i; `initial` before event 0.
    TimelineLod(const CompactSeries& times, const CompactSeries& values, int64_t initial, int64_t originUs);

    // The series grew (a live session): `values` starts with the values given before. Recomputes
    // only the pyramid's last entry per level and the new ones: O(new values + levels).
    void extend(const CompactSeries& times, const CompactSeries& values);

    // Points to draw [t0, t1] seconds at `columns` pixel columns. When the range holds few events
    // the exact steps come back (`exact` = true: draw as a step line); otherwise for each column
    // its minimum and maximum, in the order they occur, at most 2 * columns points.
    std::vector<LodPoint> query(double t0, double t1, int columns, bool* exact = nullptr) const;

    // The same as a band: per pixel column its centre, minimum and maximum (one point each, so a
    // filled band is a simple polygon, cheap to rasterise). Zoomed in, lo == hi are the exact steps.
    struct Band {
        std::vector<double> t, lo, hi;
        bool exact = false;
    };
    Band band(double t0, double t1, int columns) const;

    struct MinMax {
        int64_t min, max;
    };
    MinMax range(size_t first, size_t last) const; // over values[first, last), last > first
    int64_t valueBefore(size_t i) const { return i == 0 ? initial_ : (*values_)[i - 1]; }
    size_t indexAtOrAfter(double t) const; // first event with time >= t (seconds)

  private:
    static constexpr size_t kFan = 16;
    // The caller keeps them alive; they may be other objects than at the last extend (a newer snapshot's).
    const CompactSeries* times_ = nullptr;
    const CompactSeries* values_ = nullptr;
    size_t valueCount_ = 0;
    int64_t initial_, origin_;
    std::vector<std::vector<MinMax>> levels_; // levels_[k][j]: values[j*16^(k+1), (j+1)*16^(k+1))
};

} // namespace vs
