#include "views/timeline/AllocationBandsView.h"

#include "analysis/categories/PhaseWindows.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"
#include "common/ByteAxisTicker.h"
#include "common/CategoryColours.h"
#include "common/Throttle.h"
#include "session/Session.h"
#include "util/Format.h"
#include "util/TimeOrigin.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <utility>

namespace vs::ui {

namespace {
// Distinct hues (Tableau 10): neighbouring bands of different sites stay apart.
constexpr QRgb kHues[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                          0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x86bcb6};
constexpr double kMinPixels = 0.5; // thinner bands are left to the grey summarized band under them
constexpr int kFramesShown = 12;

// By allocation site; without stacks (a torch.profiler trace) by band, so neighbours still differ.
QColor bandColour(const AllocationBand& b, size_t index) {
    const QColor hue(kHues[(b.stack.value ? b.stack.value : index / 2) % std::size(kHues)]);
    return index % 2 ? hue.darker(112) : hue; // two allocations of one site side by side stay apart
}
} // namespace

AllocationBandsView::Layout AllocationBandsView::compute(const AnalysisPtr& a, size_t d,
                                                         const std::atomic<bool>* cancel) {
    const ReplayResult& r = a->replay(d);
    Layout out;
    out.bands = std::make_shared<const AllocationBands>(
        AllocationBands::build(a->trace(d), r, AllocationBands::Options{}, cancel));
    const Capture& c = a->capture();
    if (!c.nativeStacks &&
        (!c.tags.empty() || !PhaseWindows(c).empty() || !PhaseWindows::fromStacks(c, a->trace(d)).empty()))
        out.categories = a->categories(d);
    out.allocated = std::make_shared<const TimelineLod>(a->trace(d).timeUs, r.allocated, r.initial.allocated,
                                                        a->originUs());
    if (const GraphPools& pools = *a->graphPools(d); !pools.empty()) {
        const auto& bands = out.bands->bands();
        out.pools.resize(bands.size());
        for (size_t i = 0; i < bands.size(); ++i) {
            out.pools[i] = pools.poolHolding(a->trace(d).addr[bands[i].alloc], bands[i].alloc);
            out.pooled += !out.pools[i].isDefault();
        }
    }
    return out;
}

AllocationBandsView::AllocationBandsView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(60);
}

void AllocationBandsView::follow(Session* session) {
    session_ = session;
    connect(session_, &Session::deviceChanged, this,
            [this] { isVisible() ? recompute() : void(stale_ = true); });
    connect(session_, &Session::visibleSpanChanged, this, &AllocationBandsView::setTimeRange);
    auto* live = new Throttle(
        2000, [this] { isVisible() ? recompute() : void(stale_ = true); }, this);
    connect(session_, &Session::extended, live, &Throttle::request);
}

void AllocationBandsView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (std::exchange(stale_, false)) recompute(); // the device changed or the capture grew while hidden
}

void AllocationBandsView::recompute() {
    const AnalysisPtr a = session_->analysis();
    if (!a) return;
    const size_t d = session_->device();
    session_->jobs().run<Layout>(
        JobKey::AllocationBands, this, [a, d](const JobControl& job) { return compute(a, d, &job.cancel()); },
        [this, a, d](const Layout& layout) { setLayout(a, d, layout); });
}

void AllocationBandsView::setLayout(AnalysisPtr analysis, size_t device, Layout layout) {
    analysis_ = std::move(analysis);
    device_ = device;
    layout_ = std::move(layout);
    hovered_.reset();
    start_.clear(), end_.clear();
    const auto& trace = analysis_->trace(device_);
    times_ = &trace.timeUs;
    originUs_ = analysis_->originUs();
    const double last = trace.eventCount() ? secondsOf(uint32_t(trace.eventCount() - 1)) : 0;
    for (const AllocationBand& b : layout_.bands->bands()) {
        start_.push_back(secondsOf(b.alloc));
        end_.push_back(b.free == kNoEvent ? last : secondsOf(b.free));
    }
    axis_.fitCapture(last);
    update();
}

void AllocationBandsView::setTimeRange(double from, double to) {
    if (axis_.follow(from, to)) update();
}

double AllocationBandsView::secondsOf(uint32_t event) const {
    return secondsSince(originUs_, (*times_)[event]);
}

QRect AllocationBandsView::plotRect() const {
    return TimeAxis::plotRect(*this);
}

std::optional<uint32_t> AllocationBandsView::eventAtX(int x) const {
    if (!analysis_) return std::nullopt;
    const double t = axis_.secondsAtPixel(x, plotRect());
    const auto& times = analysis_->trace(device_).timeUs;
    const auto at = microsecondsAt(originUs_, t);
    const auto it = std::upper_bound(times.begin(), times.end(), at);
    if (it == times.begin()) return std::nullopt;
    return uint32_t(it - times.begin() - 1);
}

// The visible maximum of allocated fills the height (the stack's top is allocated itself).
double AllocationBandsView::yScale(const QRect& plot, const TimelineLod::Band& band) const {
    double top = 0;
    for (double v : band.hi) top = std::max(top, v);
    visibleMax_ = std::max(top * 1.05, 1.0);
    return plot.height() / visibleMax_;
}

double AllocationBandsView::bytesPerPixel() const {
    return visibleMax_ / std::max(1, plotRect().height());
}

std::optional<size_t> AllocationBandsView::bandAt(QPoint p) const {
    const QRect plot = plotRect();
    if (!layout_.bands || !plot.contains(p)) return std::nullopt;
    const auto event = eventAtX(p.x());
    if (!event) return std::nullopt;
    const double bytes = double(plot.bottom() + 1 - p.y()) * bytesPerPixel();
    return layout_.bands->hit(*event, bytes);
}

QString AllocationBandsView::describe(size_t index) const {
    const AllocationBand& b = layout_.bands->bands()[index];
    const Capture& c = analysis_->capture();
    const auto& trace = analysis_->trace(device_);
    QString text = tr("%1 at %2\nallocated at %3 s, ")
                       .arg(QString::fromStdString(humanBytesPrecise(int64_t(b.bytes))),
                            QString::fromStdString(hexAddress(trace.addr[b.alloc])))
                       .arg(secondsOf(b.alloc), 0, 'f', 6);
    text +=
        b.free == kNoEvent ? tr("alive at the end") : tr("freed at %1 s").arg(secondsOf(b.free), 0, 'f', 6);
    if (inGraphPool(index))
        text +=
            tr("\nin CUDA graph private pool %1: the graph's own memory, kept for its replays (never a leak)")
                .arg(QString::fromStdString(layout_.pools[index].text()));
    const auto frames = shownFrames(c, b.stack, true, false);
    if (frames.empty()) text += tr("\n(no stack recorded)");
    for (size_t i = 0; i < frames.size() && i < kFramesShown; ++i)
        text += QStringLiteral("\n  ") + QString::fromStdString(frameText(c, frames[i]));
    if (frames.size() > kFramesShown)
        text += tr("\n  \u2026 %n more frame(s)", nullptr, int(frames.size() - kFramesShown));
    return text + tr("\nclick to select the allocation");
}

void AllocationBandsView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    drawn_ = 0;
    if (!layout_.bands) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("The allocation bands appear once the capture is laid out"));
        return;
    }
    const QRect plot = plotRect();
    if (plot.width() <= 0 || plot.height() <= 0) return;
    const auto allocated = layout_.allocated->band(axis_.from(), axis_.to(), std::max(1, plot.width()));
    const double pxPerByte = yScale(plot, allocated);
    // Thousands of rectangles, most a pixel wide: filled straight into an image's rows, which costs
    // their area, not QPainter's per-call setup.
    if (canvas_.size() != plot.size()) canvas_ = QImage(plot.size(), QImage::Format_RGB32);
    canvas_.fill(palette().color(QPalette::Base));
    paintSummarized(plot, allocated, pxPerByte);
    const double minBytes = kMinPixels / pxPerByte;
    const auto& bands = layout_.bands->bands();
    for (size_t i = 0; i < bands.size(); ++i) {
        if (end_[i] < axis_.from() || start_[i] > axis_.to() || double(bands[i].bytes) < minBytes) continue;
        const QRgb colour = colourOf(i).rgb();
        const bool striped = inGraphPool(i);
        forEachRect(plot, i, pxPerByte, [&](const QRectF& r) { fill(plot, r, colour, striped); });
        ++drawn_;
    }
    p.drawImage(plot.topLeft(), canvas_);
    if (hovered_) { // outline the one the tooltip names
        p.setClipRect(plot);
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(palette().color(QPalette::WindowText), 2));
        forEachRect(plot, *hovered_, pxPerByte, [&](const QRectF& r) { p.drawRect(r); });
        p.setClipping(false);
    }
    paintAxes(p, plot, pxPerByte);
}

// A rectangle in widget coordinates, at least a pixel each way, clipped to the plot, into canvas_.
// Striped (diagonal, every 4 px in a lighter shade) for a CUDA graph private pool's allocation.
void AllocationBandsView::fill(const QRect& plot, const QRectF& r, QRgb colour, bool striped) const {
    const int x0 = std::max(int(std::floor(r.left())), plot.left()) - plot.left();
    const int x1 =
        std::min(std::max(int(std::lround(r.right())), int(std::floor(r.left())) + 1), plot.right() + 1) -
        plot.left();
    const int y0 = std::max(int(std::lround(r.top())), plot.top()) - plot.top();
    const int y1 =
        std::min(std::max(int(std::lround(r.bottom())), int(std::lround(r.top())) + 1), plot.bottom() + 1) -
        plot.top();
    if (x1 <= x0 || y1 <= y0) return;
    auto* bits = reinterpret_cast<QRgb*>(canvas_.bits());
    const qsizetype stride = canvas_.bytesPerLine() / qsizetype(sizeof(QRgb));
    if (!striped) {
        for (int y = y0; y < y1; ++y) std::fill_n(bits + y * stride + x0, x1 - x0, colour);
        return;
    }
    const QRgb light = QColor(colour).lighter(150).rgb();
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) bits[y * stride + x] = ((x + y) / 4) % 2 ? light : colour;
}

bool AllocationBandsView::inGraphPool(size_t band) const {
    return band < layout_.pools.size() && !layout_.pools[band].isDefault();
}

// The allocations too small for a band of their own: grey from the bottom to allocated (per pixel
// column its maximum; zoomed in, the exact steps); the bands filled over it leave it showing only
// above them (memory_viz's "summarized" band) and where a band is thinner than half a pixel.
void AllocationBandsView::paintSummarized(const QRect& plot, const TimelineLod::Band& band,
                                          double pxPerByte) const {
    const int w = plot.width(), h = plot.height();
    std::vector<int> top(size_t(w), h); // per column, the first row (from the top) that is grey
    for (size_t i = 0; i < band.t.size(); ++i) {
        const double x0 = band.exact ? axis_.xOf(band.t[i], plot) - plot.left() : double(i);
        const double x1 = !band.exact             ? x0 + 1
                          : i + 1 < band.t.size() ? axis_.xOf(band.t[i + 1], plot) - plot.left()
                                                  : w;
        const int y = std::clamp(int(std::lround(h - band.hi[i] * pxPerByte)), 0, h);
        for (int c = std::max(0, int(std::floor(x0)));
             c < std::min(w, std::max(int(std::floor(x0)) + 1, int(std::lround(x1)))); ++c)
            top[size_t(c)] = std::min(top[size_t(c)], y);
    }
    const QRgb grey = palette().color(QPalette::Mid).rgb();
    auto* bits = reinterpret_cast<QRgb*>(canvas_.bits());
    const qsizetype stride = canvas_.bytesPerLine() / qsizetype(sizeof(QRgb));
    for (int y = 0; y < h; ++y) { // row by row: the rows are contiguous in memory, columns are not
        QRgb* row = bits + y * stride;
        for (int c = 0; c < w; ++c)
            if (top[size_t(c)] <= y) row[c] = grey;
    }
}

// One rectangle per offset step that is at least a pixel wide; steps inside one pixel column are
// skipped by a binary search to the next column, so a band costs at most one rectangle per column.
void AllocationBandsView::forEachRect(const QRect& plot, size_t band, double pxPerByte,
                                      const std::function<void(const QRectF&)>& rectangle) const {
    const AllocationBand& b = layout_.bands->bands()[band];
    const auto steps = layout_.bands->steps(b);
    const double bottom = plot.bottom() + 1, h = double(b.bytes) * pxPerByte;
    const double endX = axis_.xOf(b.free == kNoEvent ? axis_.to() : end_[band], plot);
    auto stepX = [&](size_t i) { return axis_.xOf(i == 0 ? start_[band] : secondsOf(steps[i].event), plot); };
    auto byTime = [&](double x) { // first step drawn at or after pixel x
        const auto at = microsecondsAt(originUs_, axis_.secondsAt(x, plot));
        const auto& times = analysis_->trace(device_).timeUs;
        return size_t(std::upper_bound(steps.begin(), steps.end(), at,
                                       [&](int64_t v, const BandStep& s) { return v < times[s.event]; }) -
                      steps.begin());
    };
    size_t i = steps.size() > 1 && stepX(1) < plot.left() ? std::max<size_t>(byTime(plot.left()), 1) - 1 : 0;
    while (i < steps.size()) {
        const double x0 = std::max(stepX(i), double(plot.left()) - 1);
        if (x0 > plot.right() + 1) break;
        size_t next = i + 1;
        if (next < steps.size() && std::floor(stepX(next)) <= std::floor(x0))
            next = std::max(byTime(std::floor(x0) + 1), next);
        const double x1 = std::min(next < steps.size() ? stepX(next) : endX, double(plot.right()) + 2);
        const double y = bottom - double(steps[next - 1].offset) * pxPerByte - h;
        rectangle(QRectF(x0, y, std::max(x1 - x0, 1.0), std::max(h, 1.0)));
        i = next;
    }
}

void AllocationBandsView::paintAxes(QPainter& p, const QRect& plot, double pxPerByte) const {
    axis_.paint(p, plot, *this);
    paintByteAxis(p, plot, plot.height() / pxPerByte, *this);
    const QFontMetrics fm = fontMetrics();
    QString legend =
        tr("%L1 allocations holding the most memory over time as bands, %L2 others summarized (grey)")
            .arg(layout_.bands->bands().size())
            .arg(layout_.bands->summarizedCount());
    if (layout_.pooled) legend += tr(" \u00b7 striped: %L1 in CUDA graph private pools").arg(layout_.pooled);
    if (layout_.categories)
        legend += byCategory_ ? tr(" \u00b7 coloured by category (right-click: by site)")
                              : tr(" \u00b7 right-click: colour by category");
    p.drawText(QRect(plot.left(), 4, plot.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(legend, Qt::ElideRight, plot.width()));
}

void AllocationBandsView::setColourByCategory(bool on) {
    byCategory_ = on;
    update();
}

QColor AllocationBandsView::colourOf(size_t i) const {
    const auto& b = layout_.bands->bands()[i];
    if (!byCategory_ || !layout_.categories) return bandColour(b, i);
    const QColor c = categoryColour(layout_.categories->ofAllocEvent(b.alloc));
    return i % 2 ? c.darker(112) : c; // neighbours of one category stay apart
}

void AllocationBandsView::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    QAction* site = menu.addAction(tr("Colour by Allocation Site"));
    QAction* category = menu.addAction(tr("Colour by Category"));
    site->setCheckable(true), category->setCheckable(true);
    site->setChecked(!byCategory_), category->setChecked(byCategory_);
    category->setEnabled(layout_.categories != nullptr);
    if (QAction* chosen = menu.exec(e->globalPos())) setColourByCategory(chosen == category);
}

void AllocationBandsView::mousePressEvent(QMouseEvent* e) {
    const auto b = bandAt(e->position().toPoint());
    if (!b) return;
    const uint32_t alloc = layout_.bands->bands()[*b].alloc;
    if (session_) session_->selectEvent(alloc); // the stack, the timeline marker, the block map follow
    emit allocationClicked(alloc);
}

bool AllocationBandsView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const auto b = bandAt(help->pos());
        if (b != hovered_) hovered_ = b, update();
        if (!b) {
            if (layout_.bands && plotRect().contains(help->pos()))
                QToolTip::showText(help->globalPos(),
                                   tr("Grey: %L1 allocations summarized (smaller or shorter-lived than the "
                                      "bands), and bands "
                                      "thinner than half a pixel")
                                       .arg(layout_.bands->summarizedCount()),
                                   this);
            else
                QToolTip::hideText();
            return true;
        }
        QToolTip::showText(help->globalPos(), describe(*b), this);
        return true;
    }
    if (e->type() == QEvent::Leave && hovered_) hovered_.reset(), update();
    return QWidget::event(e);
}

} // namespace vs::ui
