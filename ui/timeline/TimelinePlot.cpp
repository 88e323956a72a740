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
    return QColor::fromRgbF(float(c.redF() * a + bg.redF() * (1 - a)),
                            float(c.greenF() * a + bg.greenF() * (1 - a)),
                            float(c.blueF() * a + bg.blueF() * (1 - a)));
}

} // namespace

// A time range shaded over a lane's height, or hidden.
void TimelinePlot::showSpan(QCPItemRect* item, const std::optional<QCPRange>& r) const {
    item->setVisible(r.has_value());
    if (r) item->topLeft->setCoords(toAxis(r->lower), 0), item->bottomRight->setCoords(toAxis(r->upper), 1);
}

TimelinePlot::TimelinePlot(QWidget* parent) : QCustomPlot(parent) {
    // Data depends on the pixel width: recompute it once the layout is known, just before drawing.
    // Ctrl+drag: rubber-band zoom of the time axis only (y always fits the visible data).
    connect(selectionRect(), &QCPSelectionRect::accepted, this, [this](const QRect& rect, QMouseEvent*) {
        if (lanes_.empty() || rect.width() < 3) return;
        const QCPAxis* x = lanes_[laneAt(rect.center())].rect->axis(QCPAxis::atBottom);
        const double a = toSeconds(x->pixelToCoord(rect.left())),
                     b = toSeconds(x->pixelToCoord(rect.right()));
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
    legend_ = nullptr, notice_ = nullptr, gapKey_ = nullptr;
    lanes_.clear(); // graphs (marks included) were cleared above
    laneOf_.clear();
}

void TimelinePlot::setAnalysis(AnalysisPtr analysis, size_t keepDevice) {
    analysis_ = std::move(analysis);
    originUs_ = analysis_->originUs(); // the one origin of every view (core)
    refold();
    highlighted_.reset();
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
    rebuildLanes(devicesToShow(), visibleRange());
    emit lanesChanged();
}

// The lanes built again over the same range, each kept device's levels of detail reused.
void TimelinePlot::rebuildLanes(const std::vector<size_t>& devices, const QCPRange& shown) {
    for (Lane& l : lanes_)
        for (int s = 0; s < 3; ++s) keptLods_[l.device][size_t(s)] = std::move(l.bands[s].lod);
    buildLanes(devices);
    keptLods_.clear();
    setVisibleRange(shown, false);
    refreshData(); // in case the range did not change (its signal refreshes too)
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
    if (lanes_.empty()) return QCPRange(0, 1);
    const QCPRange r = lanes_[0].rect->axis(QCPAxis::atBottom)->range();
    return QCPRange(toSeconds(r.lower), toSeconds(r.upper));
}

void TimelinePlot::setVisibleRange(const QCPRange& r, bool remember) {
    if (lanes_.empty()) return;
    const QCPRange previous = visibleRange();
    lanes_[0].rect->axis(QCPAxis::atBottom)->setRange(QCPRange(toAxis(r.lower), toAxis(r.upper)));
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
            const auto band = foldedBand(*b.lod, r, columns);
            auto set = [&](QCPGraph* g, const std::vector<double>& v) {
                QVector<QCPGraphData> points(static_cast<qsizetype>(v.size()));
                for (size_t i = 0; i < v.size(); ++i) points[qsizetype(i)] = {band.t[i], v[i]};
                g->data()->set(points, true);
                // Zoomed out the column fill is the band; a polyline through thousands of per-column
                // extremes would add ~15 ms of antialiased zigzag per series. Only the active series
                // (no fill) keeps its upper line there.
                const bool line = band.exact || (&b == &l.bands[int(Series::Active)] && g == b.hi);
                g->setLineStyle(!line        ? QCPGraph::lsNone
                                : band.exact ? QCPGraph::lsStepLeft
                                             : QCPGraph::lsLine);
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
        for (QCPAbstractItem* item :
             std::initializer_list<QCPAbstractItem*>{l.cursor, l.hover, l.selection}) {
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
    return toSeconds(lanes_[laneAt(pos)].rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
}

void TimelinePlot::setCursorTime(double seconds) {
    for (auto& l : lanes_) {
        l.cursor->point1->setCoords(toAxis(seconds), 0), l.cursor->point2->setCoords(toAxis(seconds), 1);
        l.cursor->setVisible(true);
    }
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setHighlightedEvent(int device, size_t event, bool reveal) {
    highlighted_ = std::pair(device, event);
    for (Lane& l : lanes_) {
        const DeviceTrace& trace = analysis_->trace(l.device);
        const bool here = trace.device == device && event < trace.eventCount();
        l.highlight->setVisible(here);
        if (!here) continue;
        const double t = secondsSince(originUs_, trace.timeUs[event]);
        l.highlight->point1->setCoords(toAxis(t), 0), l.highlight->point2->setCoords(toAxis(t), 1);
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
        if (r)
            l.hover->topLeft->setCoords(toAxis(r->from), 0),
                l.hover->bottomRight->setCoords(toAxis(r->to), 1);
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
    for (double t : seconds) points.push_back({toAxis(t), 1.0});
    // a group's times come ascending (~1M for a leak at 100M events): QCustomPlot need not sort them
    const bool sorted = std::is_sorted(seconds.begin(), seconds.end());
    l.marks->data()->set(points, sorted);
    l.markSeconds = seconds;
    if (!sorted) std::sort(l.markSeconds.begin(), l.markSeconds.end());
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
    auto folded = [this](QVector<QCPGraphData> points) {
        for (auto& p : points) p.key = toAxis(p.key);
        return points;
    };
    l.largestFree->data()->set(folded(largestFree), true);
    l.fragments->data()->set(folded(fragments), true);
    double most = 1;
    for (const auto& f : fragments) most = std::max(most, f.value);
    l.fragments->valueAxis()->setRange(0, most * 1.1);
    QVector<QCPGraphData> ticks;
    for (double t : newSegmentAt) ticks.push_back({toAxis(t), 1.0});
    l.newSegment->data()->set(ticks, true);
    applyOverlays();
    replot(QCustomPlot::rpQueuedReplot);
}

void TimelinePlot::setLifetime(size_t device, std::optional<QCPRange> span) {
    for (Lane& l : lanes_) {
        const bool here = l.device == device && span.has_value();
        l.lifetime->setVisible(here);
        l.lifetimeSeconds = here ? span : std::nullopt;
        if (here)
            l.lifetime->topLeft->setCoords(toAxis(span->lower), 0.96),
                l.lifetime->bottomRight->setCoords(toAxis(span->upper), 1.0);
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
        if (std::abs(x->coordToPixel(toAxis(a)) - x->coordToPixel(toAxis(b))) < 3)
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
        // a mark is a group's allocation: that one is meant, not the event nearest the click (a 256-B
        // temporary beside a 32-KiB leaked block), and the region under it stays as it is
        if (const auto mark = markAt(laneAt(e->position()), e->position()))
            return emit markClicked(device, *mark);
        // a Shift+dragged range stays while the clicks fall inside it (its events' stacks), and the
        // Leaks tab keeps explaining it; a click outside lets go of it, as a region click replaces it
        const bool inRange = inSelection(t);
        if (selection_ && !inRange) setSelection(std::nullopt);
        emit timeClicked(t); // the event there is selected first; a ramp's region after it
        if (const auto r = regionAt(device, t); r && !inRange) emit regionClicked(device, r->id);
    }
}

std::optional<double> TimelinePlot::markAt(size_t lane, const QPointF& pos) const {
    const Lane& l = lanes_[lane];
    if (!l.marks || !l.marks->visible() || l.marks->data()->isEmpty()) return std::nullopt;
    constexpr double kSlop = 5; // pixels: a tick is 1.5 px wide
    const QRect r = l.rect->rect();
    if (pos.y() < r.bottom() - 0.04 * r.height() - kSlop) return std::nullopt; // the ticks' band
    const QCPAxis* x = l.marks->keyAxis();
    const double t = x->pixelToCoord(pos.x());
    const auto ticks = l.marks->data();
    auto it = ticks->findBegin(t); // the tick before t, if any
    std::optional<double> best;    // its key on the (folded) axis
    qsizetype index = -1;          // and its place among the ticks, for its time in seconds
    for (int k = 0; k < 2 && it != ticks->constEnd(); ++k, ++it) // the ticks either side of t
        if (std::abs(x->coordToPixel(it->key) - pos.x()) <= kSlop &&
            (!best || std::abs(it->key - t) < std::abs(*best - t)))
            best = it->key, index = it - ticks->constBegin();
    if (!best || index >= l.markSeconds.size()) return std::nullopt;
    return l.markSeconds[index];
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
