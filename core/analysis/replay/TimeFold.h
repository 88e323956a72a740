#pragma once
// Long idle stretches folded on the timeline's axis: a program that prepares its data for 6 s
// before its first step, or sleeps between phases, leaves most of the width empty at full view.
// A TimeFold maps seconds (the clock of every view, util/TimeOrigin.h) to the axis coordinate the
// timeline draws at and back: slope 1 outside the folded gaps, each gap squeezed into a fixed
// narrow width. Monotonic both ways, so ranges and clicks convert without loss of order. The
// identity (no gaps) is the default and what "unfold" gives.
#include "util/CompactColumn.h"

#include <cstdint>
#include <span>
#include <vector>

namespace vs {

struct IdleGap {
    double from = 0, to = 0; // seconds; nothing allocated or freed on any device in between
};

class TimeFold {
  public:
    TimeFold() = default;
    // `gaps`: sorted, disjoint, each drawn `width` seconds of axis wide (width < the gap).
    TimeFold(std::vector<IdleGap> gaps, double width);

    double toAxis(double seconds) const;
    double toSeconds(double axis) const;
    bool folded() const { return !gaps_.empty(); }
    const std::vector<IdleGap>& gaps() const { return gaps_; }
    double gapAxisWidth() const { return width_; }

    // The axis range [a0, a1] as pieces drawn at slope 1 (`folded` false) or squeezed (a gap): the
    // timeline asks its level of detail for each piece's seconds with that piece's pixel columns.
    struct Piece {
        double axisFrom, axisTo, secondsFrom, secondsTo;
        bool folded;
    };
    std::vector<Piece> pieces(double a0, double a1) const;

  private:
    std::vector<IdleGap> gaps_;
    std::vector<double> axisStart_; // where each gap begins on the axis
    double width_ = 0;
};

// The stretches worth folding: no event on any device for longer than a tenth of the whole span and
// than a second (shorter pauses are a step's ordinary rhythm at the scale a person reads the axis).
// `times` are each device's event times in µs (non-decreasing); seconds are since `originUs`.
std::vector<IdleGap> idleGaps(std::span<const CompactSeries* const> times, int64_t originUs);

// The fold the timeline draws: idleGaps, each squeezed to 2 % of the folded span.
TimeFold foldIdleGaps(std::span<const CompactSeries* const> times, int64_t originUs);

} // namespace vs
