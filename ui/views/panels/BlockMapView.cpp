#include "views/panels/BlockMapView.h"

#include "common/CategoryColours.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "model/PoolCache.h"
#include "util/Format.h"
#include "util/TimeOrigin.h"

#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace vs::ui {

BlockMapView::BlockMapView(QWidget* parent) : QAbstractScrollArea(parent) {
    viewport()->setMouseTracking(true);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

void BlockMapView::setAnalysis(AnalysisPtr analysis, size_t device) {
    analysis_ = std::move(analysis);
    device_ = device;
    pools_ = analysis_->graphPools(device);
    zoom_ = 1;
    setMoment(analysis_->trace(device).eventCount());
}

void BlockMapView::grow(AnalysisPtr grown) {
    const bool atEnd = analysis_ && moment_ == analysis_->trace(device_).eventCount();
    analysis_ = std::move(grown);
    pools_ = analysis_->graphPools(device_);
    if (atEnd) setMoment(analysis_->trace(device_).eventCount());
}

void BlockMapView::setMoment(size_t eventsApplied) {
    if (!analysis_) return;
    const DeviceTrace& t = analysis_->trace(device_);
    moment_ = std::min(eventsApplied, t.eventCount());
    stale_ = true;
    if (!isVisible()) return; // replayed when shown or asked for
    segments();               // shown: the user is scrubbing it, replay now
    updateScroll();
    viewport()->update();
}

const std::vector<StateSegment>& BlockMapView::segments() const {
    if (stale_ && analysis_) {
        segments_ = Replay::stateAfter(analysis_->trace(device_), analysis_->capture().streams,
                                       analysis_->replay(device_), analysis_->rules(), moment_);
        stale_ = awaiting_ = false;
        flagsStale_ = true;
    }
    return segments_;
}

void BlockMapView::showEvent(QShowEvent* e) {
    QAbstractScrollArea::showEvent(e);
    if (!stale_) return;
    if (replayer_ && analysis_) {
        awaiting_ = true; // the moment chosen while hidden, replayed off the GUI thread
        replayer_(moment_);
        return viewport()->update();
    }
    updateScroll();
}

void BlockMapView::setState(size_t moment, std::vector<StateSegment> segments) {
    if (moment != moment_ || !stale_) return; // an older moment's, or already replayed here
    segments_ = std::move(segments);
    stale_ = awaiting_ = false;
    flagsStale_ = true;
    updateScroll();
    viewport()->update();
    emit stateReady();
}

void BlockMapView::setHighlightedAddress(std::optional<uint64_t> address) {
    highlight_ = address;
    viewport()->update();
}

void BlockMapView::setMarkedAllocations(std::vector<uint32_t> allocEvents) {
    // a region's allocations come in allocation order already: O(n) to see, no O(n log n) sort
    if (!std::is_sorted(allocEvents.begin(), allocEvents.end()))
        std::sort(allocEvents.begin(), allocEvents.end());
    markedEvents_ = std::move(allocEvents);
    flagsStale_ = true;
    viewport()->update();
}

void BlockMapView::setMarkedAddresses(std::vector<uint64_t> addresses) {
    std::sort(addresses.begin(), addresses.end());
    markedAddresses_ = std::move(addresses);
    flagsStale_ = true;
    viewport()->update();
}

bool BlockMapView::isMarked(const StateBlock& b) const {
    if (b.state == BlockState::Inactive) return false;
    return (b.allocEvent != kNoEvent &&
            std::binary_search(markedEvents_.begin(), markedEvents_.end(), b.allocEvent)) ||
           std::binary_search(markedAddresses_.begin(), markedAddresses_.end(), b.address);
}

const std::vector<bool>& BlockMapView::markedFlags() const {
    const auto& state = segments();
    if (!flagsStale_) return markedFlags_;
    markedFlags_.clear();
    for (const auto& s : state)
        for (const auto& b : s.blocks) markedFlags_.push_back(isMarked(b));
    flagsStale_ = false;
    return markedFlags_;
}

size_t BlockMapView::markedAlive() const {
    const auto& flags = markedFlags();
    return size_t(std::count(flags.begin(), flags.end(), true));
}

void BlockMapView::setColourBy(ColourBy c) {
    colourBy_ = c;
    viewport()->update();
}

void BlockMapView::setZoom(double factor) {
    zoom_ = std::clamp(factor, 1.0, 1e6);
    updateScroll();
    viewport()->update();
}

BlockLayout BlockMapView::layout() const {
    const int width = std::max(16, viewport()->width() - 2 * kMargin);
    const int rows = std::max(1, (viewport()->height() - kMargin) / (kRowHeight + kRowGap));
    return BlockLayout(segments(), BlockLayout::fitBytesPerPixel(segments(), width, rows) / zoom_, width);
}

void BlockMapView::updateScroll() {
    if (stale_ && replayer_) return; // laid out when the background replay's state arrives
    const int total = layout().rows() * (kRowHeight + kRowGap) + kMargin;
    verticalScrollBar()->setRange(0, std::max(0, total - viewport()->height()));
    verticalScrollBar()->setPageStep(viewport()->height());
}

BlockMapView::Colours BlockMapView::colours() const {
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    return {dark ? QColor(255, 105, 105) : QColor(214, 39, 40),
            dark ? QColor(230, 190, 60) : QColor(220, 160, 0),
            dark ? QColor(94, 168, 255) : QColor(31, 102, 196),
            QColor(150, 150, 150),
            palette().color(QPalette::Window).darker(dark ? 60 : 112),
            dark ? QColor(255, 255, 255) : QColor(0, 0, 0)};
}

void BlockMapView::setCategories(std::shared_ptr<const DeviceCategories> categories) {
    categories_ = std::move(categories);
    viewport()->update();
}

QColor BlockMapView::colourOf(const StateBlock& b, const Colours& c, bool marked) const {
    if (marked) return c.marked; // the selection's blocks
    if (b.state == BlockState::ActivePendingFree) return c.pending;
    if (colourBy_ == ColourBy::State || b.allocEvent == kNoEvent)
        return b.allocEvent == kNoEvent && colourBy_ != ColourBy::State ? c.baseline : c.allocated;
    if (colourBy_ == ColourBy::Age) return c.age(double(b.allocEvent) / double(std::max<size_t>(1, moment_)));
    if (colourBy_ == ColourBy::Category)
        return categoryColour(categories_ ? categories_->ofAllocEvent(b.allocEvent) : Category::Unknown);
    const StackId s = analysis_->trace(device_).stack[b.allocEvent];
    const uint32_t site = firstUserFrame(analysis_->capture(), s);
    const uint32_t key = site == kNoFrame ? 0 : analysis_->capture().stacks.frames(s)[site].value;
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    return QColor::fromHsv(int((key * 2654435761u) % 360), 150, dark ? 230 : 200);
}

QList<BlockMapView::LegendEntry> BlockMapView::legend() const {
    const Colours c = colours();
    QList<LegendEntry> out;
    if (colourBy_ == ColourBy::State) out << LegendEntry{tr("allocated"), c.allocated};
    if (colourBy_ == ColourBy::Site)
        out << LegendEntry{tr("one colour per allocating line (hover a block)"),
                           QColor::fromHsv(200, 150, 200)};
    if (colourBy_ == ColourBy::Age)
        out << LegendEntry{tr("oldest"), c.age(0)} << LegendEntry{tr("newest"), c.age(1)};
    if (colourBy_ == ColourBy::Category)
        for (size_t k = 0; k < kCategoryCount; ++k) {
            const auto name = categoryName(Category(k));
            out << LegendEntry{QString::fromUtf8(name.data(), int(name.size())), categoryColour(Category(k))};
        }
    if (colourBy_ != ColourBy::State) out << LegendEntry{tr("from before the recording"), c.baseline};
    out << LegendEntry{tr("pending free"), c.pending} << LegendEntry{tr("free (cached)"), c.free}
        << LegendEntry{tr("marked"), c.marked};
    if (highlight_) out << LegendEntry{tr("highlighted"), palette().color(QPalette::Highlight)};
    if (!pools_->empty()) out << LegendEntry{tr("stripe: CUDA graph private pool"), graphPoolColour()};
    if (analysis_ && !analysis_->ghosts(device_).blocks.empty())
        out << LegendEntry{tr("hatched: ghost (from before the recording, seen only being freed)"), c.ghost};
    return out;
}

QColor BlockMapView::graphPoolColour() {
    return QColor(0, 150, 160); // teal: apart from the state, site, age and category colours
}

void BlockMapView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().color(QPalette::Base));
    if (awaiting_ && stale_) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   tr("Replaying the allocator to event #%L1\u2026").arg(moment_));
        return;
    }
    if (segments().empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   analysis_ ? tr("No segments are reserved at this moment")
                             : tr("Open a capture to see its block map"));
        return;
    }
    const BlockLayout l = layout();
    const int scroll = verticalScrollBar()->value();
    const int firstRow = std::max(0, (scroll - kMargin) / (kRowHeight + kRowGap));
    const int lastRow = (scroll + viewport()->height()) / (kRowHeight + kRowGap) + 1;
    const Colours colours = this->colours(); // once: the palette's conversions cost more than a block
    const std::vector<bool>& marked = markedFlags();
    const double firstPixel = double(firstRow) * l.width(), endPixel = double(lastRow + 1) * l.width();
    // Paints strip pixels [from, to) as rectangles, wrapping across rows; returns nothing off screen.
    auto span = [&](double from, double to, const QBrush& c) {
        to = std::max(to, from + 1); // below a pixel: still a pixel
        for (int row = int(from / l.width()); row <= int((to - 1) / l.width()); ++row) {
            if (row < firstRow || row > lastRow) continue;
            const double a = std::max(from, double(row) * l.width()),
                         b = std::min(to, double(row + 1) * l.width());
            p.fillRect(QRectF(kMargin + a - double(row) * l.width(),
                              kMargin + row * (kRowHeight + kRowGap) - scroll, b - a, kRowHeight),
                       c);
        }
    };
    // A stripe along the top of a segment's rows: a CUDA graph's private pool.
    auto stripe = [&](double from, double to) {
        for (int row = int(from / l.width()); row <= int((to - 1) / l.width()); ++row) {
            if (row < firstRow || row > lastRow) continue;
            const double a = std::max(from, double(row) * l.width()),
                         b = std::min(to, double(row + 1) * l.width());
            p.fillRect(QRectF(kMargin + a - double(row) * l.width(),
                              kMargin + row * (kRowHeight + kRowGap) - scroll, b - a, 3),
                       graphPoolColour());
        }
    };
    const GhostBlocks& ghosts = analysis_->ghosts(device_);
    const QBrush ghostHatch(colours.ghost, Qt::BDiagPattern);
    size_t flat = 0; // the block's index across segments, in markedFlags()
    const auto event = uint32_t(moment_ == 0 ? 0 : moment_ - 1);
    for (size_t s = 0; s < segments().size(); ++s) {
        const StateSegment& g = segments()[s];
        const double start = l.segmentStart(s);
        span(start, l.pixelOf(s, g.size), colours.free); // free space, then live blocks over it
        const bool graphPool = !pools_->empty() && !pools_->poolOf(g.address, event).isDefault();
        // Blocks below a pixel share it: one rectangle per pixel and colour, not one per block.
        double paintedTo = -1;
        QColor paintedColour;
        for (const StateBlock& b : g.blocks) {
            const bool isMarkedBlock = marked[flat++];
            if (b.state == BlockState::Inactive) continue;
            const double from = l.pixelOf(s, b.address - g.address),
                         to = l.pixelOf(s, b.address - g.address + b.size);
            if (std::max(to, from + 1) <= firstPixel || from >= endPixel) continue; // off screen
            const QColor c = colourOf(b, colours, isMarkedBlock);
            const bool ghost =
                b.allocEvent == kNoEvent && !ghosts.blocks.empty() && ghosts.contains(b.address);
            if (c == paintedColour && to <= paintedTo && !ghost)
                continue;                                 // inside what was just painted in its colour
            span(from, to - (to - from >= 3 ? 1 : 0), c); // a hairline between wide neighbours
            if (ghost) span(from, to - (to - from >= 3 ? 1 : 0), ghostHatch);
            paintedTo = std::max(to, from + 1), paintedColour = c;
        }
        if (graphPool) stripe(start, l.pixelOf(s, g.size));
        if (highlight_ && *highlight_ >= g.address && *highlight_ < g.address + g.size)
            for (const StateBlock& b : g.blocks)
                if (*highlight_ >= b.address && *highlight_ < b.address + b.size) { // outline the block
                    const double from = l.pixelOf(s, b.address - g.address),
                                 to = l.pixelOf(s, b.address - g.address + b.size);
                    span(from, std::max(to, from + 3), palette().color(QPalette::Highlight));
                }
    }
}

void BlockMapView::resizeEvent(QResizeEvent* e) {
    QAbstractScrollArea::resizeEvent(e);
    updateScroll();
}

void BlockMapView::wheelEvent(QWheelEvent* e) {
    if (!(e->modifiers() & Qt::ControlModifier)) return QAbstractScrollArea::wheelEvent(e); // scrolls
    setZoom(zoom_ * std::pow(1.0015, e->angleDelta().y()));
    e->accept();
}

BlockLayout::Hit BlockMapView::hitTest(QPoint pos) const {
    if (segments().empty()) return {};
    const int y = pos.y() + verticalScrollBar()->value() - kMargin;
    if (y < 0 || y % (kRowHeight + kRowGap) >= kRowHeight) return {};
    return layout().hitTest(pos.x() - kMargin, y / (kRowHeight + kRowGap));
}

QString BlockMapView::describe(const BlockLayout::Hit& h) const {
    if (h.segment < 0) return {};
    const StateSegment& g = segments()[size_t(h.segment)];
    if (isPoolCache(g.address))
        return tr("<b>memory pool #%1's cache</b>, %2: device memory a stream-ordered pool (cudaMallocAsync) "
                  "holds beyond its live allocations")
            .arg(poolCacheIndex(g.address))
            .arg(formatBytes(double(g.size)));
    QString s = tr("<b>segment</b> %1, %2%3, stream %4")
                    .arg(QString::fromStdString(hexAddress(g.address)), formatBytes(double(g.size)))
                    .arg(g.expandable ? tr(", expandable") : QString())
                    .arg(g.stream);
    if (const PoolId pool = pools_->poolOf(g.address, uint32_t(moment_ == 0 ? 0 : moment_ - 1));
        !pool.isDefault())
        s += tr("<br><b>CUDA graph private pool</b> %1 (stripe on top): memory a captured graph keeps by "
                "design (torch.compile mode=\"reduce-overhead\", torch.cuda.graph), reused at each replay")
                 .arg(QString::fromStdString(pool.text()));
    if (h.block < 0) return s;
    const StateBlock& b = g.blocks[size_t(h.block)];
    s += tr("<br><b>block</b> %1: %2 (%3 requested), <i>%4</i>")
             .arg(QString::fromStdString(hexAddress(b.address)), formatBytes(double(b.size)),
                  formatBytes(double(b.requestedSize)), QString::fromLatin1(blockStateName(b.state).data()));
    if (b.state != BlockState::Inactive) {
        const DeviceTrace& t = analysis_->trace(device_);
        if (b.allocEvent == kNoEvent) {
            s += tr("<br>allocated before the recording started");
            if (analysis_->ghosts(device_).contains(b.address))
                s += tr("<br><b>ghost</b>: the trace sees it only being freed (its alloc was lost or came "
                        "first)");
        } else {
            const double age = moment_ ? secondsSince(t.timeUs[b.allocEvent], t.timeUs[moment_ - 1]) : 0;
            const Capture& c = analysis_->capture();
            const uint32_t site = firstUserFrame(c, t.stack[b.allocEvent]);
            s += tr("<br>allocated by event #%1, %2 s ago").arg(b.allocEvent).arg(age, 0, 'f', 3);
            if (site != kNoFrame) {
                const Frame& f = c.frames[c.stacks.frames(t.stack[b.allocEvent])[site]];
                s += tr("<br>at %1 (%2:%3)")
                         .arg(QString::fromUtf8(c.strings.text(f.name).data()).toHtmlEscaped(),
                              QString::fromUtf8(c.strings.text(f.filename).data()).section('/', -1))
                         .arg(f.line);
            }
        }
    }
    return s;
}

void BlockMapView::zoomToSegment(size_t segment) {
    if (segment >= segments().size()) return;
    const int width = std::max(16, viewport()->width() - 2 * kMargin);
    const int rows = std::max(1, (viewport()->height() - kMargin) / (kRowHeight + kRowGap));
    const double fit = BlockLayout::fitBytesPerPixel(segments(), width, rows);
    setZoom(fit / (double(segments()[segment].size) / (0.95 * width * rows))); // the segment fills the view
    const BlockLayout l = layout();
    verticalScrollBar()->setValue(int(l.segmentStart(segment) / l.width()) * (kRowHeight + kRowGap));
}

void BlockMapView::mouseDoubleClickEvent(QMouseEvent* e) {
    const auto h = hitTest(e->position().toPoint());
    if (h.segment < 0) return setZoom(1); // double-click outside: everything again
    zoomToSegment(size_t(h.segment));
}

void BlockMapView::mousePressEvent(QMouseEvent* e) {
    const auto h = hitTest(e->position().toPoint());
    if (h.segment < 0 || h.block < 0) return;
    const StateBlock& b = segments()[size_t(h.segment)].blocks[size_t(h.block)];
    if (b.allocEvent != kNoEvent && b.state != BlockState::Inactive) emit blockClicked(device_, b.allocEvent);
}

bool BlockMapView::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QString text = describe(hitTest(help->pos()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

} // namespace vs::ui
