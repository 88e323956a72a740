// TimelinePlot's lanes: one axis rect per shown device with its series bands, markers (OOMs,
// annotations, notes' lines) and the shaded spans, built when a capture or the shown devices change.
#include "timeline/TimelinePlot.h"

#include "common/ByteAxisTicker.h"
#include "common/TimelineColours.h"
#include "timeline/FoldedTimeTicker.h"
#include "util/DisplayText.h"
#include "util/TimeOrigin.h"

namespace vs::ui {

// The lanes of these devices; the selection and growth shading carry over (a rebuild for a picked
// device keeps what the user chose).
void TimelinePlot::buildLanes(const std::vector<size_t>& devices) {
    clearLanes();
    laneOf_.assign(analysis_->deviceCount(), -1);
    for (size_t d : devices) buildLane(d);
    if (lanes_.empty()) {
        plotLayout()->addElement(0, 0, new QCPTextElement(this, tr("This capture holds no device")));
        return;
    }
    if (devices.size() < analysis_->deviceCount())
        notice_->setText(tr("%1 of %2 devices have a lane: the busiest, and the one picked under Device")
                             .arg(devices.size())
                             .arg(analysis_->deviceCount()));
    for (Lane& l : lanes_) showSpan(l.selection, selection_), showSpan(l.growth, growth_);
    for (size_t i = 0; i + 1 < lanes_.size(); ++i) { // the time axis is shared: labelled once, at the bottom
        QCPAxis* x = lanes_[i].rect->axis(QCPAxis::atBottom);
        x->setTickLabels(false);
        x->setLabel(QString());
    }
    applyColours();
    applyOverlays();
}

TimelinePlot::Lane* TimelinePlot::laneOf(size_t device) {
    return device < laneOf_.size() && laneOf_[device] >= 0 ? &lanes_[size_t(laneOf_[device])] : nullptr;
}

const TimelinePlot::Lane* TimelinePlot::laneOf(size_t device) const {
    return const_cast<TimelinePlot*>(this)->laneOf(device);
}

void TimelinePlot::buildLane(size_t device) {
    const DeviceTrace& t = analysis_->trace(device);
    const ReplayResult& r = analysis_->replay(device);
    Lane lane;
    lane.device = device;
    lane.rect = new QCPAxisRect(this);
    lane.rect->setLayer(QStringLiteral("background")); // its fill under the "grid" layer's shading bands
    plotLayout()->addElement(plotLayout()->rowCount(), 0, lane.rect);
    // A fixed left margin: the plot does not shift when y labels change width, and lanes align.
    lane.rect->setAutoMargins(QCP::msTop | QCP::msRight | QCP::msBottom);
    lane.rect->setMargins(
        QMargins(fontMetrics().horizontalAdvance(QStringLiteral("000.0 MiB")) + 34, 0, 0, 0));
    lane.rect->setRangeDrag(Qt::Horizontal);
    lane.rect->setRangeZoom(Qt::Horizontal);
    QCPAxis* x = lane.rect->axis(QCPAxis::atBottom);
    QCPAxis* y = lane.rect->axis(QCPAxis::atLeft);
    x->setLabel(fold_.folded() ? tr("time since first event (s); idle gaps folded")
                               : tr("time since first event (s)"));
    x->setTicker(QSharedPointer<QCPAxisTicker>(new FoldedTimeTicker(&fold_)));
    y->setLabel(analysis_->deviceCount() > 1 || t.device == kPinnedHostDevice
                    ? QString::fromStdString(deviceName(t.device))
                    : tr("GPU memory"));
    y->setTicker(QSharedPointer<QCPAxisTicker>(new ByteAxisTicker));
    y->setNumberPrecision(3);
    // Draw order: light fills first, then reserved, active and allocated bands (allocated on top).
    auto fill = [&] {
        auto* f = new ColumnFill(x, y);
        f->removeFromLegend();
        return f;
    };
    lane.allocatedBase = fill();
    lane.cachedFill = fill();
    auto kept = keptLods_.extract(device);
    auto lod = [&kept](Series s) { return kept ? std::move(kept.mapped()[size_t(s)]) : nullptr; };
    lane.bands[int(Series::Reserved)] =
        makeBand(lod(Series::Reserved), x, y, tr("reserved"), r.reserved, r.initial.reserved, t);
    lane.bands[int(Series::Active)] =
        makeBand(lod(Series::Active), x, y, tr("active (incl. pending free)"), r.active, r.initial.active, t);
    lane.bands[int(Series::Allocated)] =
        makeBand(lod(Series::Allocated), x, y, tr("allocated"), r.allocated, r.initial.allocated, t);
    if (lanes_.empty()) { // one horizontal legend above the lanes, never over the data
        legend_ = new QCPLegend;
        auto* top = new QCPLayoutGrid;
        plotLayout()->insertRow(0);
        plotLayout()->addElement(0, 0, top);
        plotLayout()->setRowStretchFactor(0, 0.001);
        top->addElement(0, 0, legend_);
        notice_ = new QCPTextElement(this, QString()); // also a spacer: it keeps the legend compact
        top->addElement(0, 1, notice_);
        top->setColumnStretchFactor(0, 0.001);
        top->setColumnStretchFactor(1, 1);
        legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst);
        legend_->setLayer(QStringLiteral("legend"));
        legend_->setMargins(QMargins(0, 0, 0, 0));
    }
    // the filled series are named by their fill (their lines are hidden when zoomed out)
    for (Series k : {Series::Allocated, Series::Reserved})
        lane.bands[int(k)].fill->setName(lane.bands[int(k)].hi->name());
    buildMarkers(lane, device, x, y);
    buildBlockNotes(lane, device, x, y);
    buildGapBreaks(lane.rect, x, y);
    if (fold_.folded() && !gapKey_) {
        gapKey_ = legendKey(x, y, tr("idle, folded (View \u2192 Fold Idle Gaps)"), Qt::NoPen);
        gapKey_->setBrush(QBrush(TimelineColours::forPalette(palette()).text, Qt::Dense6Pattern));
    }
    lane.cursor = new QCPItemStraightLine(this);
    lane.cursor->setClipAxisRect(lane.rect);
    for (auto* p : {lane.cursor->point1, lane.cursor->point2}) p->setAxes(x, y);
    lane.cursor->setVisible(false);
    lane.selection = makeBandItem(x, y);
    lane.growth = makeBandItem(x, y);
    // Shading bands are drawn over the data: the fills under the curves are opaque (a translucent
    // fill per pixel column is 25x slower to rasterise), so a band under them would not show.
    lane.growth->setPen(Qt::NoPen);
    lane.growth->setBrush(QColor(220, 40, 40, 28));
    lane.hover = makeBandItem(x, y);
    lane.hover->setPen(Qt::NoPen); // its brush follows the palette (applyColours)
    lane.lifetime = makeBandItem(x, y);
    lane.lifetime->setPen(QPen(QColor(40, 160, 90), 1, Qt::DashLine));
    lane.lifetime->setBrush(QColor(40, 160, 90, 40));
    lane.highlight = new QCPItemStraightLine(this);
    lane.highlight->setClipAxisRect(lane.rect);
    for (auto* p : {lane.highlight->point1, lane.highlight->point2}) p->setAxes(x, y);
    lane.highlight->setVisible(false);
    connect(x, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this, x](const QCPRange& range) {
        if (refreshing_) return;
        QCPRange want = range;
        const QCPRange seconds = fullRange(), full(toAxis(seconds.lower), toAxis(seconds.upper));
        if (want.size() < 1e-6)
            want = QCPRange(want.center() - 5e-7, want.center() + 5e-7); // 1 µs at most zoomed in
        if (want.size() > full.size() * 1.5) want = full;
        refreshing_ = true;
        for (auto& l : lanes_) l.rect->axis(QCPAxis::atBottom)->setRange(want);
        refreshing_ = false;
        Q_UNUSED(x);
        refreshData();
        emit visibleRangeChanged(toSeconds(want.lower), toSeconds(want.upper));
    });
    laneOf_[device] = int(lanes_.size());
    lanes_.push_back(std::move(lane));
}

// A vertical line at `at` seconds across a lane with its label at the top, in the pen's colour.
std::pair<QCPAbstractItem*, QCPAbstractItem*> TimelinePlot::addMarker(QCPAxisRect* rect, QCPAxis* x,
                                                                      QCPAxis* y, double at,
                                                                      const QString& label, const QPen& pen) {
    auto* line = new QCPItemStraightLine(this);
    line->setClipAxisRect(rect);
    for (auto* p : {line->point1, line->point2}) p->setAxes(x, y);
    line->point1->setCoords(toAxis(at), 0), line->point2->setCoords(toAxis(at), 1);
    line->setPen(pen);
    auto* text = new QCPItemText(this);
    text->setClipAxisRect(rect);
    text->position->setAxes(x, y);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(toAxis(at), 0.02);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setText(label);
    text->setColor(pen.color());
    return {line, text};
}

// OOM markers (always: an OOM is the finding) and annotations (record_function regions, an overlay):
// labelled lines when few enough for their labels not to run into each other, short ticks when many.
void TimelinePlot::buildMarkers(Lane& lane, size_t device, QCPAxis* x, QCPAxis* y) {
    const DeviceTrace& t = analysis_->trace(device);
    const auto colours = TimelineColours::forPalette(palette());
    auto marker = [&](double at, const QString& label, const QPen& pen) {
        return addMarker(lane.rect, x, y, at, label, pen);
    };
    for (size_t i = 0; i < t.eventCount(); ++i)
        if (t.action[i] == Action::Oom) {
            const auto [line, label] =
                marker(secondsSince(originUs_, t.timeUs[i]),
                       tr("OOM (%1 asked)").arg(formatBytes(double(t.size[i]))), QPen(colours.oom, 1.5));
            lane.oomLabels.push_back(static_cast<QCPItemText*>(label)); // addMarker's label is its text
            if (!lane.oomKey)
                lane.oomKey = legendKey(x, y, tr("out of memory (OOM)"), QPen(colours.oom, 1.5));
        }
    lane.pauses.build(this, lane.rect, x, y, analysis_->capture(), t.device, originUs_, fold_,
                      colours.annotation);
    if (!lane.pauses.items.empty()) {
        lane.pauseKey = legendKey(x, y, tr("the recorder paused the program (retention graph)"), Qt::NoPen);
        lane.pauseKey->setBrush(PauseBands::hatch(colours.annotation));
    }
    std::vector<const Annotation*> starts; // the pauses are drawn as such, not as annotations
    for (const auto& a : analysis_->capture().annotations)
        if (a.device == t.device && a.start && analysis_->capture().strings.text(a.name) != kPauseAnnotation)
            starts.push_back(&a);
    if (starts.empty()) return;
    const QPen pen(colours.annotation, 1, Qt::DotLine);
    lane.annotationKey = legendKey(x, y, tr("annotations (record_function)"), pen);
    if (starts.size() <= 12) {
        for (const Annotation* a : starts) {
            // a one-line marker: a short cut of a name of any length (a file may hold megabytes)
            const std::string name =
                displayText(analysis_->capture().strings.text(a->name), "name", kMarkerTextBytes);
            const auto [line, text] = marker(secondsSince(originUs_, a->timeUs),
                                             QString::fromUtf8(name.data(), qsizetype(name.size())), pen);
            lane.annotationItems.push_back(line);
            lane.annotationItems.push_back(text);
        }
        return;
    }
    // Many: one impulse graph of short ticks along the top, on a hidden axis (0..1 is the top 3 %).
    // (an axis of their own: the lane's right axis is the fragmentation overlay's fragment count)
    QCPAxis* ticksAxis = lane.rect->addAxis(QCPAxis::atRight);
    ticksAxis->setRange(-32, 1);
    ticksAxis->setVisible(false);
    lane.annotationTicks = addGraph(x, ticksAxis);
    lane.annotationTicks->removeFromLegend();
    lane.annotationTicks->setName(QStringLiteral("annotation ticks")); // the legend's entry is annotationKey
    lane.annotationTicks->setLineStyle(QCPGraph::lsImpulse);
    QVector<QCPGraphData> points;
    for (const Annotation* a : starts) points.push_back({toAxis(secondsSince(originUs_, a->timeUs)), 1.0});
    lane.annotationTicks->data()->set(points, true);
    QColor faint = colours.annotation;
    faint.setAlpha(110);
    lane.annotationTicks->setPen(QPen(faint, 1));
    lane.annotationKey->setPen(QPen(faint, 2)); // the legend shows what is drawn: ticks, not dotted lines
    lane.annotationKey->setName(tr("annotations (record_function, ticks at the top)"));
}

// Labels of nearby annotations would print over each other into a grey smear: at this zoom a label is
// shown only where it clears the one before it; the line of every annotation stays.
void TimelinePlot::placeAnnotationLabels() {
    const bool on = overlays_[int(Overlay::Annotations)];
    for (auto& l : lanes_) {
        // an OOM's label reads to the left of its line where it would run past the plot's edge
        for (QCPItemText* text : l.oomLabels) {
            const double x = l.rect->axis(QCPAxis::atBottom)->coordToPixel(text->position->coords().x());
            const bool past =
                x + QFontMetrics(text->font()).horizontalAdvance(text->text()) + 6 > l.rect->right();
            text->setPositionAlignment((past ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        }
        double freeFrom = -1e9;
        for (QCPAbstractItem* item : l.annotationItems) {
            auto* text = qobject_cast<QCPItemText*>(item);
            if (!text) continue;
            const double x = l.rect->axis(QCPAxis::atBottom)->coordToPixel(text->position->coords().x());
            const bool fits = x >= freeFrom;
            text->setVisible(on && fits);
            if (on && fits) freeFrom = x + QFontMetrics(text->font()).horizontalAdvance(text->text()) + 6;
        }
    }
}

// An empty graph that only gives the legend an entry for marks drawn as items (lines, ticks).
QCPGraph* TimelinePlot::legendKey(QCPAxis* x, QCPAxis* y, const QString& name, const QPen& pen) {
    QCPGraph* g = addGraph(x, y);
    g->removeFromLegend();
    g->setName(name);
    g->setPen(pen);
    g->setLineStyle(QCPGraph::lsLine);
    return g;
}

TimelinePlot::Band TimelinePlot::makeBand(std::unique_ptr<TimelineLod> kept, QCPAxis* x, QCPAxis* y,
                                          const QString& name, const CompactSeries& values, int64_t initial,
                                          const DeviceTrace& t) {
    Band b;
    b.fill = new ColumnFill(x, y); // the band between each column's minimum and maximum, under its lines
    b.fill->removeFromLegend();
    b.hi = addGraph(x, y);
    b.hi->setName(name);
    b.lo = addGraph(x, y);
    b.lo->removeFromLegend();
    b.lod = kept ? std::move(kept) : std::make_unique<TimelineLod>(t.timeUs, values, initial, originUs_);
    return b;
}

// A hidden rectangle spanning a time range over the whole height of a lane.
QCPItemRect* TimelinePlot::makeBandItem(QCPAxis* x, QCPAxis* y) {
    auto* r = new QCPItemRect(this);
    r->setClipAxisRect(x->axisRect());
    for (auto* p : {r->topLeft, r->bottomRight}) {
        p->setAxes(x, y);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    r->setVisible(false);
    return r;
}

} // namespace vs::ui
