// TimelinePlot's overlays and legend: which marks are drawn, and a legend and tooltip lines that
// name what is drawn now, nothing else.
#include "timeline/TimelinePlot.h"

namespace vs::ui {

void TimelinePlot::setOverlayVisible(Overlay o, bool on) {
    overlays_[int(o)] = on;
    applyOverlays();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::applyOverlays() {
    const bool active = overlays_[int(Overlay::Active)], frag = overlays_[int(Overlay::Fragmentation)],
               notes = overlays_[int(Overlay::Annotations)];
    for (auto& l : lanes_) {
        l.bands[int(Series::Active)].hi->setVisible(active);
        l.bands[int(Series::Active)].lo->setVisible(active);
        l.bands[int(Series::Active)].fill->setVisible(active);
        for (QCPGraph* g : {l.largestFree, l.newSegment, l.fragments})
            if (g) g->setVisible(frag);
        if (l.fragments) l.fragments->valueAxis()->setVisible(frag);
        for (QCPAbstractItem* item : l.annotationItems) item->setVisible(notes);
        if (l.annotationTicks) l.annotationTicks->setVisible(notes);
    }
    placeAnnotationLabels(); // of the shown annotations, the labels that do not collide
    syncLegend();
}

// The legend names what is drawn now, nothing else: the two main series, then each visible overlay
// and mark (one entry for all lanes; the first lane that has the mark gives it).
void TimelinePlot::syncLegend() {
    if (!legend_) return;
    legend_->clearItems();
    auto add = [this](QCPAbstractPlottable* p) {
        if (p && !legend_->hasItemWithPlottable(p)) p->addToLegend(legend_);
    };
    auto first = [this](auto member) -> QCPAbstractPlottable* {
        for (const Lane& l : lanes_)
            if (QCPAbstractPlottable* p = member(l)) return p;
        return nullptr;
    };
    const Lane& l0 = lanes_.front();
    add(l0.bands[int(Series::Allocated)].fill);
    add(l0.bands[int(Series::Reserved)].fill);
    if (overlays_[int(Overlay::Active)]) add(l0.bands[int(Series::Active)].hi);
    if (overlays_[int(Overlay::Fragmentation)]) {
        add(first([](const Lane& l) { return l.largestFree; }));
        add(first([](const Lane& l) { return l.fragments; }));
        add(first([](const Lane& l) { return l.newSegment; }));
    }
    if (overlays_[int(Overlay::Annotations)]) {
        add(first([](const Lane& l) { return l.annotationKey; }));
        add(first([](const Lane& l) { return l.noteKey; }));
    }
    add(first([](const Lane& l) { return l.oomKey; }));
    add(first([](const Lane& l) { return l.pauseKey; }));
    add(gapKey_);
    add(first([](const Lane& l) { return l.marks && !l.marks->data()->isEmpty() ? l.marks : nullptr; }));
    legend_->setMaximumSize(legend_->minimumOuterSizeHint().width() + 24, QWIDGETSIZE_MAX);
}

QStringList TimelinePlot::legendNames() const {
    QStringList names;
    for (int i = 0; legend_ && i < legend_->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend_->item(i)))
            names << item->plottable()->name();
    return names;
}

// The shaded marks under a moment, named for the tooltip (the legend names the lines and ticks).
QString TimelinePlot::marksAt(const Lane& l, double seconds) const {
    QStringList marks;
    auto inside = [seconds](const std::optional<QCPRange>& r) { return r && r->contains(seconds); };
    if (inside(selection_)) marks << tr("purple shading: the selected range (Shift+drag; Esc clears)");
    if (inside(growth_)) marks << tr("red shading: the growth region explained in the Leaks tab");
    if (const QString gap = gapAt(seconds); !gap.isEmpty()) marks << gap;
    if (l.pauses.contains(seconds))
        marks << tr("hatched: the recorder paused the program here to take a retention graph (not a stall of "
                    "the program)");
    if (l.lifetime->visible() && l.lifetimeSeconds && l.lifetimeSeconds->contains(seconds))
        marks << tr("green bar: the lifetime of the block clicked in the block map");
    if (l.highlight->visible() &&
        std::abs(toSeconds(l.highlight->point1->coords().x()) - seconds) < visibleRange().size() / 100)
        marks << tr("yellow line: the event selected in the event list");
    return marks.isEmpty() ? QString()
                           : QStringLiteral("<br><span style='color:gray'>") +
                                 marks.join(QStringLiteral("<br>")) + QStringLiteral("</span>");
}

} // namespace vs::ui
