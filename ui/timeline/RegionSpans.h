#pragma once
// Growth regions as time spans on one timeline lane, for hover and click: kept sorted by start so a
// mouse move finds the region under it in O(log n + overlapping) without touching the events.
#include <QString>
#include <QVector>

#include <optional>

namespace vs::ui {

struct RegionSpan {
    double from = 0, to = 0; // seconds on the timeline
    int id = -1;             // the caller's index of the region
    QString label;           // for the tooltip
};

class RegionSpans {
  public:
    void set(QVector<RegionSpan> spans);
    void clear() { set({}); }
    bool empty() const { return spans_.isEmpty(); }
    const QVector<RegionSpan>& spans() const { return spans_; }
    // The narrowest span holding `seconds` (regions nest: an iteration inside a phase), if any.
    std::optional<RegionSpan> at(double seconds) const;

  private:
    QVector<RegionSpan> spans_; // by start
    double widest_ = 0;         // spans starting before `seconds - widest_` cannot hold it
};

} // namespace vs::ui
