#pragma once
// The time axis of the views drawn on the timeline's clock (the allocation bands, the memory map):
// seconds since the capture's first event (util/TimeOrigin.h), over the range the timeline shows so
// that a moment sits at the same x in every view, the whole capture until the timeline sets one.
// It lays out their common frame (a byte axis on the left, a line of legend above, the time axis
// below), maps x to seconds and back, and draws the bottom axis with the timeline's ticks.
#include <QRect>

#include <utility>

class QPainter;
class QWidget;

namespace vs::ui {

class TimeAxis {
  public:
    // The plot area inside `view`'s axes and legend.
    static QRect plotRect(const QWidget& view);
    // The whole capture, its last event at `lastSeconds`, with a margin each side as the timeline
    // has when fitted; ignored once following the timeline.
    void fitCapture(double lastSeconds);
    // Follows the timeline's visible range from now on; false (nothing changed) for an empty one.
    bool follow(double from, double to);
    std::pair<double, double> range() const { return {from_, to_}; }
    double from() const { return from_; }
    double to() const { return to_; }

    double xOf(double seconds, const QRect& plot) const;
    double secondsAt(double x, const QRect& plot) const;
    double secondsAtPixel(int x, const QRect& plot) const { return secondsAt(x + 0.5, plot); } // its centre
    // The frame's two axis lines, the time ticks with their labels and the axis title, in `view`'s
    // palette and font.
    void paint(QPainter& p, const QRect& plot, const QWidget& view) const;

  private:
    double from_ = 0, to_ = 1;
    bool following_ = false;
};

} // namespace vs::ui
