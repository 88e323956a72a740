#include "PauseBands.h"
#include "util/TimeOrigin.h"

#include <algorithm>

namespace vs::ui {

QBrush PauseBands::hatch(const QColor& colour) {
    QColor c = colour;
    c.setAlpha(120);
    return QBrush(c, Qt::BDiagPattern);
}

void PauseBands::build(QCustomPlot* plot, QCPAxisRect* rect, QCPAxis* x, QCPAxis* y, const Capture& c,
                       int device, int64_t originUs, const TimeFold& fold, const QColor& colour) {
    for (const RecorderPause& p : recorderPauses(c, device)) {
        const double from = secondsSince(originUs, p.fromUs), to = secondsSince(originUs, p.toUs);
        auto* r = new QCPItemRect(plot);
        r->setClipAxisRect(rect);
        for (auto* pos : {r->topLeft, r->bottomRight}) {
            pos->setAxes(x, y);
            pos->setTypeY(QCPItemPosition::ptAxisRectRatio); // the lane's full height at any zoom
        }
        r->topLeft->setCoords(fold.toAxis(from), 0), r->bottomRight->setCoords(fold.toAxis(to), 1);
        r->setPen(Qt::NoPen);
        r->setBrush(hatch(colour));
        r->setSelectable(false);
        items.push_back(r);
        spans.emplace_back(from, to);
    }
}

bool PauseBands::contains(double seconds) const {
    return std::any_of(spans.begin(), spans.end(), [&](const QCPRange& r) { return r.contains(seconds); });
}

} // namespace vs::ui
