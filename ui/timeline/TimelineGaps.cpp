// Idle gaps folded on the time axis (issue 46): a program that prepares its data for seconds before
// its first step, or sleeps between phases, would leave most of the width empty. The fold (core
// TimeFold.h) squeezes each gap to a narrow break, labelled with its length; the levels of detail
// are asked piece by piece, so the drawn columns stay one per pixel.
#include "common/TimelineColours.h"
#include "timeline/TimelinePlot.h"

#include <cmath>

namespace vs::ui {

TimelineLod::Band TimelinePlot::foldedBand(const TimelineLod& lod, const QCPRange& axis, int columns) const {
    if (!fold_.folded()) return lod.band(axis.lower, axis.upper, columns);
    TimelineLod::Band out;
    out.exact = true;
    for (const auto& p : fold_.pieces(axis.lower, axis.upper)) {
        const int n = std::max(1, int(std::lround(columns * (p.axisTo - p.axisFrom) / axis.size())));
        const auto b = lod.band(p.secondsFrom, p.secondsTo, n);
        out.exact = out.exact && b.exact;
        for (double t : b.t) out.t.push_back(toAxis(t));
        out.lo.insert(out.lo.end(), b.lo.begin(), b.lo.end());
        out.hi.insert(out.hi.end(), b.hi.begin(), b.hi.end());
    }
    return out;
}

static QString gapLength(double seconds) {
    return seconds >= 120 ? QObject::tr("%1 min idle").arg(seconds / 60, 0, 'f', 1)
                          : QObject::tr("%1 s idle").arg(seconds, 0, 'f', 1);
}

// A break where a gap is folded: a shaded strip over the lane's height, its length written along it.
void TimelinePlot::buildGapBreaks(QCPAxisRect* rect, QCPAxis* x, QCPAxis* y) {
    const auto c = TimelineColours::forPalette(palette());
    QColor shade = c.text;
    shade.setAlpha(30);
    for (const IdleGap& g : fold_.gaps()) {
        auto* strip = makeBandItem(x, y);
        strip->topLeft->setCoords(toAxis(g.from), 0), strip->bottomRight->setCoords(toAxis(g.to), 1);
        strip->setPen(QPen(c.axis, 1, Qt::DashLine));
        strip->setBrush(QBrush(shade, Qt::Dense6Pattern));
        strip->setVisible(true);
        auto* label = new QCPItemText(this);
        label->setClipAxisRect(rect);
        label->position->setAxes(x, y);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(toAxis((g.from + g.to) / 2), 0.5);
        label->setRotation(-90);
        label->setText(gapLength(g.to - g.from));
        label->setColor(c.text);
        label->setSelectable(false);
    }
}

QString TimelinePlot::gapAt(double seconds) const {
    for (const IdleGap& g : fold_.gaps())
        if (seconds >= g.from && seconds <= g.to)
            return tr("folded: %1 without an allocation or a free on any device (View \u2192 Fold Idle Gaps)")
                .arg(gapLength(g.to - g.from).section(QLatin1Char(' '), 0, 1));
    return {};
}

void TimelinePlot::refold() {
    std::vector<const CompactSeries*> times;
    for (size_t d = 0; d < analysis_->deviceCount(); ++d) times.push_back(&analysis_->trace(d).timeUs);
    fold_ = foldGaps_ ? foldIdleGaps(times, originUs_) : TimeFold();
}

void TimelinePlot::setFoldIdleGaps(bool on) {
    if (on == foldGaps_) return;
    foldGaps_ = on;
    if (!analysis_ || lanes_.empty()) return;
    // what was put on the lanes, in seconds, to put back on the rebuilt ones
    struct Put {
        size_t device;
        QVector<double> marks;
        std::optional<QCPRange> lifetime;
        QVector<RegionSpan> regions;
    };
    std::vector<Put> put;
    for (const Lane& l : lanes_)
        put.push_back({l.device, l.markSeconds, l.lifetimeSeconds, l.regions.spans()});
    const auto highlighted = highlighted_;
    const QCPRange shown = visibleRange(); // read through the fold it was drawn with
    refold();
    rebuildLanes(devicesToShow(), shown);
    for (const Put& p : put) {
        if (!p.marks.isEmpty()) setMarkedTimes(p.device, p.marks);
        if (p.lifetime) setLifetime(p.device, p.lifetime);
        setRegions(p.device, p.regions);
    }
    if (highlighted) setHighlightedEvent(highlighted->first, highlighted->second, false);
    replot(); // now: the new lanes' layout is what the next mouse event and pixel lookup meet
    emit lanesChanged();
}

} // namespace vs::ui
