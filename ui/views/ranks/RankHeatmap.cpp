#include "views/ranks/RankHeatmap.h"

#include "common/ByteAxisTicker.h"
#include "views/ranks/HeatColours.h"

#include <QFuture>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace vs::ui {
namespace {

constexpr int kLeft = 64, kBottom = 40, kTop = 6, kRight = 10;

double niceStep(double span, int ticks) {
    const double raw = span / std::max(1, ticks), mag = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) return m * mag;
    return 10 * mag;
}

} // namespace

RankHeatmap::RankHeatmap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(300, 120);
}

void RankHeatmap::setRanks(std::shared_ptr<const RankSet> set) {
    set_ = std::move(set);
    marked_.assign(set_ ? set_->ranks.size() : 0, 0);
    if (set_) {
        for (const auto& o : set_->outliers) marked_[o.index] = 1;
        for (size_t i = 0; i < set_->ranks.size(); ++i) marked_[i] |= !set_->ranks[i].ok();
    }
    setMetric(metric_);
    fitAll();
}

void RankHeatmap::setMetric(Metric m) {
    metric_ = m;
    updateScale();
    update();
}

void RankHeatmap::updateScale() {
    scaleMin_ = INT64_MAX, scaleMax_ = INT64_MIN;
    if (set_)
        for (const auto& r : set_->ranks) {
            const auto& v = valuesOf(r);
            if (!r.ok() || v.empty()) continue;
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            scaleMin_ = std::min(scaleMin_, *lo), scaleMax_ = std::max(scaleMax_, *hi);
        }
    if (scaleMin_ > scaleMax_) scaleMin_ = 0, scaleMax_ = 1;
    if (scaleMax_ == scaleMin_) ++scaleMax_;
}

void RankHeatmap::setAlignBySteps(bool steps) {
    bySteps_ = steps;
    updateScale();
    fitAll();
}

double RankHeatmap::extent() const {
    if (!set_) return 1;
    if (!bySteps_) return std::max<double>(1, double(set_->lastUs - set_->firstUs));
    size_t steps = 0;
    for (const auto& r : set_->ranks) steps = std::max(steps, r.iterations);
    return std::max<double>(1, double(steps));
}

void RankHeatmap::fitAll() {
    setView(0, extent());
}

void RankHeatmap::setView(double from, double to) {
    const double whole = extent(), span = std::clamp(to - from, whole * 1e-6, whole);
    from_ = std::clamp(from, 0.0, whole - span), to_ = from_ + span;
    update();
}

QRect RankHeatmap::plotArea() const {
    return rect().adjusted(kLeft, kTop, -kRight, -kBottom);
}

const std::vector<int64_t>& RankHeatmap::valuesOf(const RankSummary& r) const {
    const bool allocated = metric_ == Metric::Allocated;
    if (bySteps_) return allocated ? r.stepPeak : r.stepPeakReserved;
    return allocated ? r.binAllocated : r.binReserved;
}

RankHeatmap::Slices RankHeatmap::slicesOf(const RankSummary& r) const {
    Slices s;
    if (!r.ok() || r.events == 0) return s;
    // its time slices, or its slots of iterations (stepsPerSlot units each), in view units
    s.values = &valuesOf(r);
    if (s.values->empty()) return s.values = nullptr, s;
    s.first = bySteps_ ? 0 : double(r.firstUs - set_->firstUs);
    s.last = bySteps_ ? double(s.values->size() * r.stepsPerSlot) : double(r.lastUs - set_->firstUs);
    s.width = bySteps_ ? r.stepsPerSlot : std::max(1e-9, (s.last - s.first) / double(s.values->size()));
    return s;
}

int RankHeatmap::Slices::sliceAt(double x) const {
    const int n = int(values->size());
    if (!(x > first)) return 0;
    int k = int(std::min(double(n - 1), (x - first) / width)); // a guess, then settled by start()
    while (k + 1 < n && start(k + 1) <= x) ++k;
    while (k > 0 && start(k) > x) --k;
    return k;
}

int64_t RankHeatmap::Slices::maxOver(double x0, double x1) const {
    if (!values || x1 < first || x0 > last) return -1;
    const auto& v = *values;
    int k = sliceAt(x0);
    int64_t m = v[size_t(k)];
    for (++k; k < int(v.size()) && start(k) < x1; ++k) m = std::max(m, v[size_t(k)]);
    return m;
}

int64_t RankHeatmap::cellValue(const RankSummary& r, double x0, double x1) const {
    return slicesOf(r).maxOver(x0, x1);
}

QRgb RankHeatmap::colourOf(int64_t v) const {
    return ColourScale(palette().color(QPalette::Base).rgb(), scaleMin_, scaleMax_)(v);
}

void RankHeatmap::rowValues(const Slices& s, const std::vector<double>& edges,
                            std::vector<int64_t>& row) const {
    if (!s.values) return;
    const int64_t* v = s.values->data();
    const int n = int(s.values->size());
    const int w = int(edges.size()) - 1;
    // The slice at each pixel edge (sliceAt), guessed with a multiplication and settled by start():
    // the settling loops almost never run, so no branch is mispredicted per pixel (a walk along
    // pixels and slices together mispredicts at every irregular step)
    const double inv = 1 / s.width, top = n - 1;
    const auto at = [&](double x) {
        if (!(x > s.first)) return 0;
        int k = int(std::min(top, (x - s.first) * inv));
        while (k + 1 < n && s.start(k + 1) <= x) ++k;
        while (k > 0 && s.start(k) > x) --k;
        return k;
    };
    int k0 = at(edges[0]);
    for (int x = 0; x < w; ++x) {
        const double x0 = edges[size_t(x)], x1 = edges[size_t(x) + 1];
        const int k1 = at(x1);
        if (x1 < s.first) {
            k0 = k1;
            continue;
        }
        if (x0 > s.last) break;
        // the pixel holds its left edge's slice and the slices starting before its right edge
        const int last = std::max(k0, s.start(k1) < x1 || k1 == 0 ? k1 : k1 - 1);
        int64_t m = std::max(v[k0], v[std::min(k0 + 1, last)]);
        for (int j = k0 + 2; j <= last; ++j) m = std::max(m, v[j]);
        row[size_t(x)] = std::max(row[size_t(x)], m);
        k0 = k1;
    }
}

QImage RankHeatmap::renderCells(QSize size) const {
    QImage img(size, QImage::Format_RGB32);
    img.fill(palette().color(QPalette::Base).rgb());
    if (!set_ || set_->ranks.empty() || size.isEmpty()) return img;
    const int w = size.width(), h = size.height(), n = int(set_->ranks.size());
    uchar* bits = img.bits(); // taken once: the halves below write disjoint lines of it
    const qsizetype stride = img.bytesPerLine();
    const auto line = [&](int y) { return reinterpret_cast<QRgb*>(bits + stride * y); };
    const auto topOf = [&](int i) { return int(int64_t(i) * h / n); };
    const ColourScale colour(palette().color(QPalette::Base).rgb(), scaleMin_, scaleMax_);
    const Way way = wayFor(w, h);
    const MergedRows* merged = way == Way::Merged ? &mergedRows(h) : nullptr;
    // ranks [from, to) into their pixel rows (or, merged, pixel rows [from, to)): several ranks
    // sharing a row show their maximum; one scanline coloured per row and copied to its other lines.
    // Values are kept per pixel, or, scattering, colour indices (their maximum is the same colour)
    const auto draw = [&](int from, int to) {
        std::vector<int64_t> row(static_cast<size_t>(w), -1);
        std::vector<int16_t> indices(static_cast<size_t>(w), -1), rank(static_cast<size_t>(w));
        std::vector<double> edges(static_cast<size_t>(w) + 1);
        const double perPixel = (to_ - from_) / w;
        for (int x = 0; x <= w; ++x) edges[size_t(x)] = from_ + x * perPixel;
        const auto flush = [&](int yFrom, int yTo) {
            QRgb* first = line(yFrom);
            if (way == Way::Scatter)
                for (int x = 0; x < w; ++x) first[x] = colour.at(indices[size_t(x)]);
            else
                for (int x = 0; x < w; ++x) first[x] = colour(row[size_t(x)]);
            for (int y = yFrom + 1; y < yTo; ++y) std::memcpy(line(y), first, size_t(w) * sizeof(QRgb));
            std::fill(row.begin(), row.end(), -1), std::fill(indices.begin(), indices.end(), int16_t(-1));
        };
        if (merged) {
            for (int y = from; y < to; ++y) {
                rowValues(
                    Slices{&merged->cells[size_t(y)], 0, merged->cellWidth * kMergedCells, merged->cellWidth},
                    edges, row);
                flush(y, y + 1);
            }
            return;
        }
        for (int i = from; i < to; ++i) {
            const Slices s = slicesOf(set_->ranks[size_t(i)]);
            if (way == Way::Scatter) {
                std::fill(rank.begin(), rank.end(), int16_t(-1));
                scatterRow(s, edges, colour, rank);
                for (size_t x = 0; x < rank.size(); ++x)
                    indices[x] = std::max(indices[x], rank[x]); // vectorised
            } else {
                rowValues(s, edges, row);
            }
            const int y0 = topOf(i), next = i + 1 < n ? topOf(i + 1) : h;
            if (i + 1 == to || next != y0) flush(y0, std::min(h, std::max(y0 + 1, next)));
        }
    };
    // many ranks (or rows): the lower half on another core, split where a pixel row begins
    const int units = merged ? h : n;
    int half = units / 2;
    while (!merged && half > 0 && half < n && topOf(half) == topOf(half - 1)) ++half;
    if (units < 64 || half <= 0 || half >= units) {
        draw(0, units);
    } else {
        QFuture<void> lower = QtConcurrent::run([&] { draw(half, units); });
        draw(0, half);
        lower.waitForFinished();
    }
    return img;
}

void RankHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Window));
    const QRect area = plotArea();
    if (!set_ || set_->ranks.empty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No ranks loaded"));
        return;
    }
    // the cells are drawn again only when what they show changed: a repaint for a tooltip, an
    // exposed part or the table beside it costs a copy of the image
    const CellsKey key{set_.get(), metric_, bySteps_, from_, to_, area.size(), exactWork_};
    if (!(key == cellsKey_)) cells_ = renderCells(area.size()), cellsKey_ = key;
    p.drawImage(area.topLeft(), cells_);
    drawSteps(p, area);
    // rank labels where they fit, outliers marked red
    const int n = int(set_->ranks.size());
    const double rowH = double(area.height()) / n;
    const int every = std::max(1, int(std::ceil(14 / rowH)));
    p.setPen(palette().color(QPalette::WindowText));
    for (int i = 0; i < n; ++i) {
        const int y = area.top() + int(i * rowH);
        if (marked_[size_t(i)])
            p.fillRect(QRect(kLeft - 8, y, 6, std::max(2, int(rowH))), QColor(220, 40, 40));
        if (i % every == 0) { // "rank 12", or only the number where that does not fit ("16383")
            const int rank = set_->ranks[size_t(i)].rank;
            const QString label = tr("rank %1").arg(rank);
            p.drawText(QRect(0, y, kLeft - 12, std::max(14, int(rowH))), Qt::AlignRight | Qt::AlignVCenter,
                       p.fontMetrics().horizontalAdvance(label) <= kLeft - 12 ? label
                                                                              : QString::number(rank));
        }
    }
    drawAxis(p, area);
    drawScale(p);
}

void RankHeatmap::drawScale(QPainter& p) const {
    // the colour bar: what the darkest and the brightest cell hold
    const QRect bar(width() - kRight - 120, height() - 12, 120, 8);
    for (int x = 0; x < bar.width(); ++x)
        p.fillRect(bar.left() + x, bar.top(), 1, bar.height(), QColor(heat(double(x) / bar.width())));
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, bar.top() - 6, bar.left() - 5, 18), Qt::AlignRight | Qt::AlignVCenter,
               tr("%1 %2 \u2013 %3")
                   .arg(metricName(), formatBytes(double(scaleMin_)), formatBytes(double(scaleMax_))));
}

QString RankHeatmap::metricName() const {
    const bool allocated = metric_ == Metric::Allocated;
    if (bySteps_) return allocated ? tr("peak allocated per step") : tr("peak reserved per step");
    return allocated ? tr("allocated") : tr("reserved");
}

void RankHeatmap::drawSteps(QPainter& p, const QRect& area) const {
    if (bySteps_) return; // every column is one step already
    const int n = int(set_->ranks.size());
    const double rowH = double(area.height()) / n;
    if (rowH < 6) return;
    p.setPen(QColor(255, 255, 255, 150));
    for (int i = 0; i < n; ++i) {
        const int y = area.top() + int(i * rowH);
        for (int64_t us : set_->ranks[size_t(i)].stepUs) {
            const double x = double(us - set_->firstUs);
            if (x < from_ || x > to_) continue;
            const int px = area.left() + int((x - from_) / (to_ - from_) * area.width());
            p.drawLine(px, y, px, y + int(rowH / 3));
        }
    }
}

void RankHeatmap::drawAxis(QPainter& p, const QRect& area) const {
    p.setPen(palette().color(QPalette::WindowText));
    const double unit = bySteps_ ? 1 : 1e6, span = (to_ - from_) / unit;
    const double step = std::max(bySteps_ ? 1.0 : 1e-6, niceStep(span, std::max(2, area.width() / 110)));
    for (double v = std::ceil(from_ / unit / step) * step; v <= to_ / unit; v += step) {
        const int x = area.left() + int((v * unit - from_) / (to_ - from_) * area.width());
        p.drawLine(x, area.bottom(), x, area.bottom() + 4);
        const QString label = bySteps_ ? tr("step %1").arg(int64_t(v)) : tr("%1 s").arg(v, 0, 'g', 6);
        // the last label kept inside the widget rather than cut at its edge
        p.drawText(QRect(std::min(x - 50, width() - 100), area.bottom() + 5, 100, kBottom - 6),
                   Qt::AlignHCenter | Qt::AlignTop, label);
    }
}

int RankHeatmap::rankRowAt(QPoint pos) const {
    const QRect area = plotArea();
    if (!set_ || set_->ranks.empty() || pos.y() < area.top() || pos.y() > area.bottom()) return -1;
    const int i = int(double(pos.y() - area.top()) / area.height() * double(set_->ranks.size()));
    return std::clamp(i, 0, int(set_->ranks.size()) - 1);
}

void RankHeatmap::wheelEvent(QWheelEvent* e) {
    const QRect area = plotArea();
    const double at = from_ + (e->position().x() - area.left()) / std::max(1, area.width()) * (to_ - from_);
    const double f = e->angleDelta().y() > 0 ? 0.8 : 1.25;
    setView(at - (at - from_) * f, at + (to_ - at) * f);
    e->accept();
}

void RankHeatmap::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) dragFrom_ = e->position().toPoint(), dragViewFrom_ = from_;
}

void RankHeatmap::mouseMoveEvent(QMouseEvent* e) {
    if (!dragFrom_) return;
    const double dx = (e->position().x() - dragFrom_->x()) / std::max(1, plotArea().width()) * (to_ - from_);
    const double span = to_ - from_;
    setView(dragViewFrom_ - dx, dragViewFrom_ - dx + span);
}

void RankHeatmap::mouseReleaseEvent(QMouseEvent*) {
    dragFrom_.reset();
}

void RankHeatmap::mouseDoubleClickEvent(QMouseEvent* e) {
    if (const int i = rankRowAt(e->position().toPoint()); i >= 0) emit rankActivated(i);
}

void RankHeatmap::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Home) return fitAll();
    QWidget::keyPressEvent(e);
}

bool RankHeatmap::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* h = static_cast<QHelpEvent*>(e);
    const int i = rankRowAt(h->pos());
    const QRect area = plotArea();
    if (i < 0 || h->pos().x() < area.left()) return QToolTip::hideText(), true;
    const RankSummary& r = set_->ranks[size_t(i)];
    const double x = from_ + double(h->pos().x() - area.left()) / area.width() * (to_ - from_);
    const double px = (to_ - from_) / area.width();
    const int64_t v = cellValue(r, x, x + px);
    const QString where = bySteps_ ? tr("step %1").arg(int64_t(x)) : tr("%1 s").arg(x / 1e6, 0, 'f', 3);
    QToolTip::showText(h->globalPos(),
                       tr("rank %1 at %2: %3\npeak %4, growth %5%6")
                           .arg(r.rank)
                           .arg(where, v < 0 ? tr("no data") : formatBytes(double(v)),
                                formatBytes(double(r.peakAllocated)), formatBytes(double(r.growth)),
                                r.ok() ? QString() : QStringLiteral("\n") + QString::fromStdString(r.error)),
                       this);
    return true;
}

} // namespace vs::ui
