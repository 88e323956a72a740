#include "timeline/TimelinePlot.h"

#include "common/ByteAxisTicker.h"
#include "common/TimelineColours.h"
#include "util/TimeOrigin.h"

#include <QDateTime>
#include <QToolTip>

#include <algorithm>
#include <numeric>

namespace vs::ui {
namespace {

// A step series (keys, values) read at other keys: the value of the last point at or before each.
std::vector<double> sampleSteps(const std::vector<double>& keys, const std::vector<double>& values,
                                const std::vector<double>& at) {
    std::vector<double> out;
    out.reserve(at.size());
    size_t k = 0;
    for (double t : at) {
        while (k + 1 < keys.size() && keys[k + 1] <= t) ++k;
        out.push_back(values.empty() ? 0.0 : values[k]);
    }
    return out;
}

// A translucent colour as it looks over an opaque background, made opaque: the raster engine fills
// opaque spans with a plain memory fill, translucent ones pixel by pixel.
QColor opaqueOver(const QColor& c, const QColor& bg) {
    const double a = c.alphaF();
    return QColor::fromRgbF(float(c.redF() * a + bg.redF() * (1 - a)), float(c.greenF() * a + bg.greenF() * (1 - a)),
                            float(c.blueF() * a + bg.blueF() * (1 - a)));
}

// A time range shaded over a lane's height, or hidden.
void showSpan(QCPItemRect* item, const std::optional<QCPRange>& r) {
    item->setVisible(r.has_value());
    if (r) item->topLeft->setCoords(r->lower, 0), item->bottomRight->setCoords(r->upper, 1);
}

} // namespace

TimelinePlot::TimelinePlot(QWidget* parent) : QCustomPlot(parent) {
    // Data depends on the pixel width: recompute it once the layout is known, just before drawing.
    // Ctrl+drag: rubber-band zoom of the time axis only (y always fits the visible data).
    connect(selectionRect(), &QCPSelectionRect::accepted, this, [this](const QRect& rect, QMouseEvent*) {
        if (lanes_.empty() || rect.width() < 3) return;
        const QCPAxis* x = lanes_[laneAt(rect.center())].rect->axis(QCPAxis::atBottom);
        const double a = x->pixelToCoord(rect.left()), b = x->pixelToCoord(rect.right());
        setVisibleRange(QCPRange(std::min(a, b), std::max(a, b)), false);
    });
    connect(this, &QCustomPlot::afterLayout, this, [this] {
        if (!lanes_.empty() && lanes_[0].rect->width() != dataWidth_) refreshData(false);
    });
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setAutoAddPlottableToLegend(false); // one legend for all lanes, filled explicitly
    setNoAntialiasingOnDrag(true);
    setMouseTracking(true);
    setOpenGl(false);
    wheelSettle_.setSingleShot(true);
    wheelSettle_.setInterval(350);
    connect(&wheelSettle_, &QTimer::timeout, this, [this] {
        wheelActive_ = false;
        rememberRange(rangeBeforeWheel_);
    });
    plotLayout()->clear();
    auto* empty = new QCPTextElement(this, tr("Open a capture (File \u2192 Open, or drop a file here), or "
                                              "watch a running program (Capture \u2192 Listen, Ctrl+L)"));
    plotLayout()->addElement(0, 0, empty);
}

void TimelinePlot::clearLanes() {
    clearItems();
    clearGraphs();
    plotLayout()->clear();
    legend_ = nullptr, notice_ = nullptr;
    lanes_.clear(); // graphs (marks included) were cleared above
    laneOf_.clear();
}

void TimelinePlot::setAnalysis(AnalysisPtr analysis, size_t keepDevice) {
    analysis_ = std::move(analysis);
    originUs_ = analysis_->originUs(); // the one origin of every view (core)
    pinned_ = keepDevice;
    back_.clear(), forward_.clear();
    selection_.reset();
    growth_.reset();
    buildLanes(devicesToShow());
    fitAll();
    back_.clear();
}

// Every device when they fit; else the busiest (ties: the lower index), the pinned one among them.
std::vector<size_t> TimelinePlot::devicesToShow() const {
    std::vector<size_t> all(analysis_->deviceCount());
    std::iota(all.begin(), all.end(), size_t(0));
    if (all.size() <= kMaxLanes) return all;
    auto weight = [this](size_t d) { return d == pinned_ ? SIZE_MAX : analysis_->trace(d).eventCount(); };
    std::stable_sort(all.begin(), all.end(), [&](size_t a, size_t b) { return weight(a) > weight(b); });
    all.resize(kMaxLanes);
    std::sort(all.begin(), all.end());
    return all;
}

std::vector<size_t> TimelinePlot::shownDevices() const {
    std::vector<size_t> out;
    for (const Lane& l : lanes_) out.push_back(l.device);
    return out;
}

void TimelinePlot::showDevice(size_t device) {
    if (!analysis_ || device >= analysis_->deviceCount() || laneOf(device)) return;
    pinned_ = device;
    const QCPRange shown = visibleRange();
    for (Lane& l : lanes_)
        for (int s = 0; s < 3; ++s) keptLods_[l.device][size_t(s)] = std::move(l.bands[s].lod);
    buildLanes(devicesToShow());
    keptLods_.clear();
    setVisibleRange(shown, false);
    refreshData(); // in case the range did not change (its signal refreshes too)
    emit lanesChanged();
}

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
    x->setLabel(tr("time since first event (s)"));
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
    lane.bands[int(Series::Active)] = makeBand(lod(Series::Active), x, y, tr("active (incl. pending free)"),
                                               r.active, r.initial.active, t);
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
    for (Series k : {Series::Allocated, Series::Reserved}) lane.bands[int(k)].fill->setName(lane.bands[int(k)].hi->name());
    buildMarkers(lane, device, x, y);
    buildBlockNotes(lane, device, x, y);
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
        const QCPRange full = fullRange();
        if (want.size() < 1e-6)
            want = QCPRange(want.center() - 5e-7, want.center() + 5e-7); // 1 µs at most zoomed in
        if (want.size() > full.size() * 1.5) want = full;
        refreshing_ = true;
        for (auto& l : lanes_) l.rect->axis(QCPAxis::atBottom)->setRange(want);
        refreshing_ = false;
        Q_UNUSED(x);
        refreshData();
        emit visibleRangeChanged(want.lower, want.upper);
    });
    laneOf_[device] = int(lanes_.size());
    lanes_.push_back(std::move(lane));
}

// A vertical line at `at` seconds across a lane with its label at the top, in the pen's colour.
std::pair<QCPAbstractItem*, QCPAbstractItem*> TimelinePlot::addMarker(QCPAxisRect* rect, QCPAxis* x, QCPAxis* y,
                                                                      double at, const QString& label,
                                                                      const QPen& pen) {
    auto* line = new QCPItemStraightLine(this);
    line->setClipAxisRect(rect);
    for (auto* p : {line->point1, line->point2}) p->setAxes(x, y);
    line->point1->setCoords(at, 0), line->point2->setCoords(at, 1);
    line->setPen(pen);
    auto* text = new QCPItemText(this);
    text->setClipAxisRect(rect);
    text->position->setAxes(x, y);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(at, 0.02);
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
            marker(secondsSince(originUs_, t.timeUs[i]),
                   tr("OOM (%1 asked)").arg(formatBytes(double(t.size[i]))), QPen(colours.oom, 1.5));
            if (!lane.oomKey)
                lane.oomKey = legendKey(x, y, tr("out of memory (OOM)"), QPen(colours.oom, 1.5));
        }
    lane.pauses.build(this, lane.rect, x, y, analysis_->capture(), t.device, originUs_, colours.annotation);
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
            const auto name = analysis_->capture().strings.text(a->name);
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
    for (const Annotation* a : starts) points.push_back({secondsSince(originUs_, a->timeUs), 1.0});
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
    if (l.pauses.contains(seconds))
        marks << tr("hatched: the recorder paused the program here to take a retention graph (not a stall of "
                    "the program)");
    if (l.lifetime->visible() && QCPRange(l.lifetime->topLeft->coords().x(), l.lifetime->bottomRight->coords().x()).contains(seconds))
        marks << tr("green bar: the lifetime of the block clicked in the block map");
    if (l.highlight->visible() &&
        std::abs(l.highlight->point1->coords().x() - seconds) < visibleRange().size() / 100)
        marks << tr("yellow line: the event selected in the event list");
    return marks.isEmpty() ? QString() : QStringLiteral("<br><span style='color:gray'>") + marks.join(QStringLiteral("<br>")) + QStringLiteral("</span>");
}

TimelinePlot::Band TimelinePlot::makeBand(std::unique_ptr<TimelineLod> kept, QCPAxis* x, QCPAxis* y,
                                          const QString& name,
                                          const CompactSeries& values, int64_t initial,
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

QCPGraph* TimelinePlot::seriesGraph(size_t device, Series s, bool upper) const {
    const Lane* l = laneOf(device);
    if (!l) return nullptr;
    return upper ? l->bands[int(s)].hi : l->bands[int(s)].lo;
}

void TimelinePlot::applyColours() {
    const auto c = TimelineColours::forPalette(palette());
    setBackground(c.background);
    for (auto& l : lanes_) {
        l.rect->setBackground(c.background);
        for (auto* axis : l.rect->axes()) {
            axis->setBasePen(QPen(c.axis));
            axis->setTickPen(QPen(c.axis));
            axis->setSubTickPen(QPen(c.axis));
            axis->setTickLabelColor(c.text);
            axis->setLabelColor(c.text);
            axis->grid()->setPen(QPen(c.grid, 1, Qt::DotLine));
        }
        // Cosmetic pens: Qt strokes them on its fast path (a 1.4 px pen went through the general
        // stroker, several times slower on a band of thousands of points).
        auto paint = [](Band& b, QPen pen, bool filled) {
            pen.setCosmetic(true);
            b.hi->setPen(pen);
            b.lo->setPen(pen);
            b.fill->setBrush(filled ? QBrush(pen.color()) : QBrush(Qt::NoBrush));
        };
        paint(l.bands[int(Series::Allocated)], QPen(c.allocated, 1.4), true);
        paint(l.bands[int(Series::Reserved)], QPen(c.reserved, 1.4), true);
        paint(l.bands[int(Series::Active)], QPen(c.active, 1, Qt::DashLine), false);
        QColor base = c.allocated;
        base.setAlpha(45);
        l.allocatedBase->setBrush(opaqueOver(base, c.background));
        l.cachedFill->setBrush(opaqueOver(c.cached, c.background));
        l.cursor->setPen(QPen(c.cursor, 1));
        l.selection->setPen(QPen(c.selection, 1));
        QColor sel = c.selection;
        sel.setAlpha(50);
        l.selection->setBrush(sel);
        l.highlight->setPen(QPen(c.highlight, 2));
        QColor hover = c.text;
        hover.setAlpha(22);
        l.hover->setBrush(hover);
    }
    if (!lanes_.empty()) {
        if (legend_) {
            legend_->setBrush(Qt::NoBrush);
            legend_->setTextColor(c.text);
            legend_->setBorderPen(Qt::NoPen);
        }
    }
}

QCPRange TimelinePlot::fullRange() const {
    double end = 0;
    if (analysis_)
        for (size_t d = 0; d < analysis_->deviceCount(); ++d)
            if (analysis_->trace(d).eventCount())
                end = std::max(end, secondsSince(originUs_, analysis_->trace(d).timeUs.back()));
    if (end <= 0) end = 1e-3;
    return QCPRange(-end * 0.01, end * 1.01);
}

QCPRange TimelinePlot::visibleRange() const {
    return lanes_.empty() ? QCPRange(0, 1) : lanes_[0].rect->axis(QCPAxis::atBottom)->range();
}

void TimelinePlot::setVisibleRange(const QCPRange& r, bool remember) {
    if (lanes_.empty()) return;
    const QCPRange previous = visibleRange();
    lanes_[0].rect->axis(QCPAxis::atBottom)->setRange(r);
    if (remember) rememberRange(previous);
}

void TimelinePlot::rememberRange(const QCPRange& previous) {
    const QCPRange now = visibleRange();
    if (qFuzzyCompare(previous.lower + 1, now.lower + 1) && qFuzzyCompare(previous.upper + 1, now.upper + 1))
        return;
    back_.push_back(previous);
    if (back_.size() > 100) back_.erase(back_.begin());
    forward_.clear();
}

void TimelinePlot::fitAll() {
    if (lanes_.empty()) return;
    setVisibleRange(fullRange());
}

bool TimelinePlot::zoomBack() {
    if (back_.empty()) return false;
    forward_.push_back(visibleRange());
    const QCPRange r = back_.back();
    back_.pop_back();
    setVisibleRange(r, false);
    return true;
}

bool TimelinePlot::zoomForward() {
    if (forward_.empty()) return false;
    back_.push_back(visibleRange());
    const QCPRange r = forward_.back();
    forward_.pop_back();
    setVisibleRange(r, false);
    return true;
}

void TimelinePlot::refreshData(bool replotAfter) {
    pointsDrawn_ = 0;
    if (!lanes_.empty()) dataWidth_ = lanes_[0].rect->width();
    for (auto& l : lanes_) {
        const QCPRange r = l.rect->axis(QCPAxis::atBottom)->range();
        const int columns = std::max(1, l.rect->width());
        double top = 0;
        TimelineLod::Band allocated, reserved;
        for (Band& b : l.bands) {
            const auto band = b.lod->band(r.lower, r.upper, columns);
            auto set = [&](QCPGraph* g, const std::vector<double>& v) {
                QVector<QCPGraphData> points(static_cast<qsizetype>(v.size()));
                for (size_t i = 0; i < v.size(); ++i) points[qsizetype(i)] = {band.t[i], v[i]};
                g->data()->set(points, true);
                // Zoomed out the column fill is the band; a polyline through thousands of per-column
                // extremes would add ~15 ms of antialiased zigzag per series. Only the active series
                // (no fill) keeps its upper line there.
                const bool line = band.exact || (&b == &l.bands[int(Series::Active)] && g == b.hi);
                g->setLineStyle(!line ? QCPGraph::lsNone : band.exact ? QCPGraph::lsStepLeft : QCPGraph::lsLine);
                pointsDrawn_ += v.size();
            };
            set(b.hi, band.hi);
            set(b.lo, band.lo);
            b.fill->setData(band.t, band.lo, band.hi);
            for (double v : band.hi) top = std::max(top, v);
            if (&b == &l.bands[int(Series::Allocated)]) allocated = std::move(band);
            if (&b == &l.bands[int(Series::Reserved)]) reserved = std::move(band);
        }
        // the light fills: under the allocated minima, and from allocated up to the reserved minima
        l.allocatedBase->setData(allocated.t, std::vector<double>(allocated.t.size(), 0.0), allocated.lo);
        l.cachedFill->setData(reserved.t, sampleSteps(allocated.t, allocated.hi, reserved.t), reserved.lo);
        l.rect->axis(QCPAxis::atLeft)->setRange(0, std::max(top * 1.08, 1024.0 * 1024.0));
    }
    placeAnnotationLabels();
    if (replotAfter) replot(QCustomPlot::rpQueuedReplot);
}

Totals TimelinePlot::valuesAt(size_t device, double seconds) const {
    const DeviceTrace& t = analysis_->trace(device);
    const ReplayResult& r = analysis_->replay(device);
    const auto us = microsecondsAt(originUs_, seconds);
    const auto n =
        static_cast<size_t>(std::upper_bound(t.timeUs.begin(), t.timeUs.end(), us) - t.timeUs.begin());
    return n == 0 ? r.initial : r.after(n - 1);
}

QString TimelinePlot::tooltipAt(size_t device, double seconds) const {
    const Totals v = valuesAt(device, seconds);
    const auto abs = QDateTime::fromMSecsSinceEpoch(microsecondsAt(originUs_, seconds) / 1000);
    QString s = tr("<b>%1 s</b> &nbsp;<span style='color:gray'>%2</span>")
                    .arg(seconds, 0, 'f', 6)
                    .arg(abs.toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz")));
    if (analysis_->deviceCount() > 1) s += tr("<br>device %1").arg(analysis_->trace(device).device);
    s += tr("<br>allocated %1<br>active %2<br>reserved %3<br>cached %4")
             .arg(formatBytes(double(v.allocated)), formatBytes(double(v.active)),
                  formatBytes(double(v.reserved)), formatBytes(double(v.reserved - v.allocated)));
    const Lane* l = laneOf(device);
    return l ? s + marksAt(*l, seconds) : s;
}

TimelinePlot::ExportScope::ExportScope(TimelinePlot* plot) : plot_(plot) {
    for (Lane& l : plot->lanes_)
        for (QCPAbstractItem* item : std::initializer_list<QCPAbstractItem*>{l.cursor, l.hover, l.selection}) {
            hidden_.emplace_back(item, item->visible());
            item->setVisible(false);
        }
    plot->replot(QCustomPlot::rpImmediateRefresh);
}

TimelinePlot::ExportScope::~ExportScope() {
    for (auto [item, visible] : hidden_) item->setVisible(visible);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

size_t TimelinePlot::laneAt(const QPointF& pos) const {
    for (size_t i = 0; i < lanes_.size(); ++i)
        if (lanes_[i].rect->outerRect().contains(pos.toPoint())) return i;
    return 0;
}

double TimelinePlot::timeAt(const QPointF& pos) const {
    return lanes_[laneAt(pos)].rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
}

void TimelinePlot::setCursorTime(double seconds) {
    for (auto& l : lanes_) {
        l.cursor->point1->setCoords(seconds, 0), l.cursor->point2->setCoords(seconds, 1);
        l.cursor->setVisible(true);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setHighlightedEvent(int device, size_t event, bool reveal) {
    for (Lane& l : lanes_) {
        const DeviceTrace& trace = analysis_->trace(l.device);
        const bool here = trace.device == device && event < trace.eventCount();
        l.highlight->setVisible(here);
        if (!here) continue;
        const double t = secondsSince(originUs_, trace.timeUs[event]);
        l.highlight->point1->setCoords(t, 0), l.highlight->point2->setCoords(t, 1);
        const QCPRange r = visibleRange();
        if (reveal && (t < r.lower || t > r.upper))
            setVisibleRange(QCPRange(t - r.size() / 2, t + r.size() / 2));
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setSelection(std::optional<QCPRange> r) {
    selection_ = r;
    for (auto& l : lanes_) showSpan(l.selection, r);
    replot(QCustomPlot::rpQueuedReplot);
    emit selectionChanged(r ? r->lower : 0, r ? r->upper : 0);
}

void TimelinePlot::setGrowthRegion(std::optional<QCPRange> r) {
    growth_ = r;
    for (auto& l : lanes_) showSpan(l.growth, r);
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setRegions(size_t device, const QVector<RegionSpan>& spans) {
    Lane* l = laneOf(device);
    if (!l) return;
    l->regions.set(spans);
    l->hovered = -1;
    l->hover->setVisible(false);
    replot(QCustomPlot::rpQueuedReplot);
}

std::optional<RegionSpan> TimelinePlot::regionAt(size_t device, double seconds) const {
    const Lane* l = laneOf(device);
    return l ? l->regions.at(seconds) : std::nullopt;
}

int TimelinePlot::hoveredRegion(size_t device) const {
    const Lane* l = laneOf(device);
    return l ? l->hovered : -1;
}

// Bands the region under the mouse on its lane (an index into lanes_; one lookup in a small sorted
// vector per move).
void TimelinePlot::hoverRegion(size_t lane, double seconds) {
    for (size_t i = 0; i < lanes_.size(); ++i) {
        Lane& l = lanes_[i];
        const auto r = i == lane ? l.regions.at(seconds) : std::nullopt;
        l.hovered = r ? r->id : -1;
        l.hover->setVisible(r.has_value());
        if (r) l.hover->topLeft->setCoords(r->from, 0), l.hover->bottomRight->setCoords(r->to, 1);
    }
}

void TimelinePlot::setMarkedTimes(size_t device, const QVector<double>& seconds) {
    Lane* lane = laneOf(device);
    if (!lane) return;
    Lane& l = *lane;
    if (!l.marks) { // impulses on a hidden axis: 0..1 is the bottom 4 % of the lane
        QCPAxis* hidden = l.rect->addAxis(QCPAxis::atRight);
        hidden->setVisible(false);
        hidden->setRange(0, 25);
        l.marks = addGraph(l.rect->axis(QCPAxis::atBottom), hidden);
        l.marks->setLineStyle(QCPGraph::lsImpulse);
        l.marks->setPen(QPen(TimelineColours::forPalette(palette()).selection, 1.5));
        l.marks->setName(tr("allocations of the selected Leaks group"));
    }
    QVector<QCPGraphData> points;
    points.reserve(seconds.size());
    for (double t : seconds) points.push_back({t, 1.0});
    // a group's times come ascending (~1M for a leak at 100M events): QCustomPlot need not sort them
    l.marks->data()->set(points, std::is_sorted(seconds.begin(), seconds.end()));
    syncLegend();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setFragmentation(size_t device, const QVector<QCPGraphData>& largestFree,
                                    const QVector<double>& newSegmentAt,
                                    const QVector<QCPGraphData>& fragments) {
    Lane* lane = laneOf(device);
    if (!lane) return;
    Lane& l = *lane;
    const auto c = TimelineColours::forPalette(palette());
    if (!l.largestFree) {
        l.largestFree = addGraph(l.rect->axis(QCPAxis::atBottom), l.rect->axis(QCPAxis::atLeft));
        l.largestFree->setName(tr("largest free block"));
        l.largestFree->setPen(QPen(c.annotation, 1.2, Qt::DotLine));
        l.largestFree->setLineStyle(QCPGraph::lsStepLeft);
        QCPAxis* top = l.rect->addAxis(QCPAxis::atRight);
        top->setVisible(false);
        top->setRange(-30, 1); // 0..1: the top 3 % of the lane
        l.newSegment = addGraph(l.rect->axis(QCPAxis::atBottom), top);
        l.newSegment->setLineStyle(QCPGraph::lsImpulse);
        l.newSegment->setPen(QPen(c.oom, 1.5));
        l.newSegment->setName(tr("would need a new segment"));
        QCPAxis* count = l.rect->axis(QCPAxis::atRight);
        count->setVisible(true);
        count->setLabel(tr("free fragments"));
        count->setTickLabelColor(c.annotation);
        count->setLabelColor(c.annotation);
        l.fragments = addGraph(l.rect->axis(QCPAxis::atBottom), count);
        l.fragments->setName(tr("free fragments"));
        l.fragments->setPen(QPen(c.selection, 1, Qt::DashDotLine));
        l.fragments->setLineStyle(QCPGraph::lsStepLeft);
    }
    l.largestFree->data()->set(largestFree, true);
    l.fragments->data()->set(fragments, true);
    double most = 1;
    for (const auto& f : fragments) most = std::max(most, f.value);
    l.fragments->valueAxis()->setRange(0, most * 1.1);
    QVector<QCPGraphData> ticks;
    for (double t : newSegmentAt) ticks.push_back({t, 1.0});
    l.newSegment->data()->set(ticks, true);
    applyOverlays();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setLifetime(size_t device, std::optional<QCPRange> span) {
    for (Lane& l : lanes_) {
        const bool here = l.device == device && span.has_value();
        l.lifetime->setVisible(here);
        if (here) l.lifetime->topLeft->setCoords(span->lower, 0.96), l.lifetime->bottomRight->setCoords(span->upper, 1.0);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::mousePressEvent(QMouseEvent* e) {
    rangeAtPress_ = visibleRange();
    if (!lanes_.empty() && e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier)) {
        selectAnchor_ = timeAt(e->position());
        return;
    }
    setSelectionRectMode(e->modifiers() & Qt::ControlModifier ? QCP::srmCustom : QCP::srmNone);
    QCustomPlot::mousePressEvent(e);
}

void TimelinePlot::mouseMoveEvent(QMouseEvent* e) {
    if (lanes_.empty()) return QCustomPlot::mouseMoveEvent(e);
    const double t = timeAt(e->position());
    if (selectAnchor_) {
        const QCPRange r(std::min(*selectAnchor_, t), std::max(*selectAnchor_, t));
        selection_ = r;
        for (auto& l : lanes_) showSpan(l.selection, r);
    } else {
        QCustomPlot::mouseMoveEvent(e);
    }
    const size_t lane = laneAt(e->position());
    hoverRegion(selectAnchor_ ? SIZE_MAX : lane, t); // no band while a range is being dragged
    setCursorTime(t);
    const size_t device = lanes_[lane].device;
    QString tip = tooltipAt(device, t);
    if (const auto r = regionAt(device, t); r && !selectAnchor_)
        tip = tr("<b>%1</b> \u2014 click to select<br>").arg(r->label.toHtmlEscaped()) + tip;
    QToolTip::showText(e->globalPosition().toPoint(), tip, this);
    emit cursorMoved(t);
}

void TimelinePlot::mouseReleaseEvent(QMouseEvent* e) {
    if (selectAnchor_) {
        const double a = *selectAnchor_, b = timeAt(e->position());
        selectAnchor_.reset();
        const auto* x = lanes_[0].rect->axis(QCPAxis::atBottom);
        if (std::abs(x->coordToPixel(a) - x->coordToPixel(b)) < 3)
            setSelection(std::nullopt);
        else
            setSelection(QCPRange(std::min(a, b), std::max(a, b)));
        return;
    }
    QCustomPlot::mouseReleaseEvent(e);
    const QCPRange now = visibleRange();
    if (now.lower != rangeAtPress_.lower || now.upper != rangeAtPress_.upper)
        rememberRange(rangeAtPress_);
    else if (!lanes_.empty() && e->button() == Qt::LeftButton) {
        const size_t device = lanes_[laneAt(e->position())].device;
        const double t = timeAt(e->position());
        emit laneClicked(device); // that device's events, regions and blocks are shown from now on
        emit timeClicked(t);      // the event there is selected first; a ramp's region after it
        if (const auto r = regionAt(device, t)) emit regionClicked(device, r->id);
    }
}

void TimelinePlot::mouseDoubleClickEvent(QMouseEvent* e) {
    Q_UNUSED(e);
    fitAll();
}

void TimelinePlot::wheelEvent(QWheelEvent* e) {
    if (!wheelActive_) rangeBeforeWheel_ = visibleRange(), wheelActive_ = true;
    wheelSettle_.start();
    QCustomPlot::wheelEvent(e);
}

void TimelinePlot::resizeEvent(QResizeEvent* e) {
    QCustomPlot::resizeEvent(e);
    if (!lanes_.empty()) refreshData();
}

void TimelinePlot::leaveEvent(QEvent* e) {
    for (auto& l : lanes_) l.cursor->setVisible(false);
    hoverRegion(SIZE_MAX, 0);
    replot(QCustomPlot::rpQueuedReplot);
    QCustomPlot::leaveEvent(e);
}

void TimelinePlot::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) applyColours(), replot();
    QCustomPlot::changeEvent(e);
}

} // namespace vs::ui
