#pragma once
// The recorder's own pauses (retention graphs walking the heap) as hatched bands over a lane: a
// flat stretch there is the recorder, not the program stalling.
#include "analysis/RecorderPauses.h"
#include "analysis/replay/TimeFold.h"

#include <qcustomplot.h>

#include <vector>

namespace vs::ui {

struct PauseBands {
    std::vector<QCPItemRect*> items;
    std::vector<QCPRange> spans; // seconds since the origin, for the tooltip

    // One hatched rectangle per pause of `device`, clipped to `rect`, over the lane's full height.
    void build(QCustomPlot* plot, QCPAxisRect* rect, QCPAxis* x, QCPAxis* y, const Capture& c, int device,
               int64_t originUs, const TimeFold& fold, const QColor& colour);
    bool contains(double seconds) const;
    static QBrush hatch(const QColor& colour);
};

} // namespace vs::ui
