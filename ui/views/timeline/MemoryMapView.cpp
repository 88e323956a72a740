#include "views/timeline/MemoryMapView.h"

#include "common/Throttle.h"
#include "session/Session.h"

#include <utility>

#include "common/ByteAxisTicker.h"
#include "util/Format.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>

namespace vs::ui {

MemoryMapView::MemoryMapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(60);
}

void MemoryMapView::follow(Session* session) {
    session_ = session;
    connect(session_, &Session::deviceChanged, this, &MemoryMapView::compute);
    connect(session_, &Session::visibleSpanChanged, this, &MemoryMapView::setTimeRange);
    // O(events) per grid: at most every 2 s while a capture grows, and only while shown
    auto* live = new Throttle(
        2000, [this] { isVisible() ? compute() : void(stale_ = true); }, this);
    connect(session_, &Session::extended, live, &Throttle::request);
}

void MemoryMapView::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (std::exchange(stale_, false)) compute(); // the capture grew while the tab was hidden
}

void MemoryMapView::compute() {
    const AnalysisPtr a = session_->analysis();
    const size_t d = session_->device();
    session_->jobs().run<OccupancyGrid>(
        JobKey::MemoryMap, this,
        [a, d](const JobControl&) {
            return occupancyGrid(a->trace(d), a->capture().streams, a->replay(d), a->rules(), 800, 300);
        },
        [this, d](const OccupancyGrid& grid) {
            std::vector<double> seconds;
            for (uint32_t e : grid.columnEvents) seconds.push_back(e ? session_->secondsAt(d, e - 1) : 0.0);
            setGrid(grid, std::move(seconds));
        });
}

namespace {
const char* const kCellNames[] = {
    QT_TRANSLATE_NOOP("MemoryMapView", "not reserved"), QT_TRANSLATE_NOOP("MemoryMapView", "free (cached)"),
    QT_TRANSLATE_NOOP("MemoryMapView", "pending free"), QT_TRANSLATE_NOOP("MemoryMapView", "allocated")};
} // namespace

void MemoryMapView::setGrid(OccupancyGrid grid, std::vector<double> columnSeconds) {
    grid_ = std::move(grid);
    seconds_ = std::move(columnSeconds);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QRgb colours[] = {
        palette().color(QPalette::Base).rgb(), (dark ? QColor(70, 70, 74) : QColor(215, 215, 215)).rgb(),
        QColor(220, 160, 0).rgb(), (dark ? QColor(94, 168, 255) : QColor(31, 102, 196)).rgb()};
    std::copy(std::begin(colours), std::end(colours), colours_);
    image_ = QImage(std::max(grid_.columns, 1), std::max(grid_.rows, 1), QImage::Format_RGB32);
    image_.fill(colours[0]);
    for (int r = 0; r < grid_.rows; ++r) // low addresses at the bottom
        for (int c = 0; c < grid_.columns; ++c)
            image_.setPixel(c, grid_.rows - 1 - r, colours[grid_.at(r, c)]);
    axis_.fitCapture(seconds_.empty() ? 0 : seconds_.back());
    resample();
}

void MemoryMapView::setTimeRange(double from, double to) {
    if (axis_.follow(from, to)) resample();
}

double MemoryMapView::timeAtX(int x) const {
    return axis_.secondsAtPixel(x, plotRect());
}

// The column showing the state at `seconds`: the last one taken at or before it; -1 before the first.
int MemoryMapView::columnAt(double seconds) const {
    const auto it = std::upper_bound(seconds_.begin(), seconds_.end(), seconds);
    return int(it - seconds_.begin()) - 1;
}

void MemoryMapView::resample() {
    const QRect r = plotRect();
    if (grid_.columns == 0 || r.width() <= 0) return update();
    onTime_ = QImage(r.width(), image_.height(), QImage::Format_RGB32);
    onTime_.fill(colours_[OccupancyGrid::Unreserved]); // before the first event: nothing known
    for (int x = 0; x < r.width(); ++x) {
        const int c = columnAt(timeAtX(r.left() + x));
        if (c < 0 || c >= image_.width()) continue;
        for (int y = 0; y < image_.height(); ++y) onTime_.setPixel(x, y, image_.pixel(c, y));
    }
    update();
}

void MemoryMapView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    resample();
}

QRect MemoryMapView::plotRect() const {
    return TimeAxis::plotRect(*this);
}

std::pair<int, int> MemoryMapView::cellAt(QPoint p) const {
    const QRect r = plotRect();
    if (!r.contains(p) || grid_.columns == 0) return {-1, -1};
    const int c = columnAt(timeAtX(p.x()));
    if (c < 0) return {-1, -1};
    const int row = grid_.rows - 1 - (p.y() - r.top()) * grid_.rows / std::max(1, r.height());
    return {std::clamp(c, 0, grid_.columns - 1), std::clamp(row, 0, grid_.rows - 1)};
}

void MemoryMapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (grid_.columns == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("The memory map appears once the capture is analysed"));
        return;
    }
    const QRect plot = plotRect();
    p.drawImage(plot, onTime_); // rows scaled to the height; columns already on the time axis
    paintAxes(p, plot);
    paintLegend(p);
}

// Left: the packed reserved bytes (segments stacked without the gaps between them); bottom: time.
void MemoryMapView::paintAxes(QPainter& p, const QRect& plot) const {
    axis_.paint(p, plot, *this);
    paintByteAxis(p, plot, double(grid_.packedBytes), *this);
}

// What each colour means, above the cells.
void MemoryMapView::paintLegend(QPainter& p) const {
    const QFontMetrics fm = fontMetrics();
    int x = plotRect().left();
    const int box = fm.height() - 4;
    for (int cell : {OccupancyGrid::Allocated, OccupancyGrid::PendingFree, OccupancyGrid::Free,
                     OccupancyGrid::Unreserved}) {
        const QRect swatch(x, 6, box, box);
        p.fillRect(swatch, QColor(colours_[cell]));
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(swatch);
        p.setPen(palette().color(QPalette::WindowText));
        const QString name = tr(kCellNames[cell]);
        p.drawText(x + box + 5, 4 + fm.ascent(), name);
        x += box + 5 + fm.horizontalAdvance(name) + 16;
    }
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(x, 4 + fm.ascent(), tr("\u2014 reserved address space (up) over time"));
}

void MemoryMapView::mousePressEvent(QMouseEvent* e) {
    const auto [c, row] = cellAt(e->position().toPoint());
    if (c < 0) return;
    const uint32_t applied = grid_.columnEvents[size_t(c)];
    const uint64_t address = grid_.addressOfRow(row);
    if (session_ && session_->isOpen() && applied > 0) { // the event there (the block map moves to it)
        session_->selectEvent(applied - 1);
        session_->pointAtAddress(address);
    }
    emit cellClicked(applied, address);
}

bool MemoryMapView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const auto [c, row] = cellAt(help->pos());
        if (c < 0) return QToolTip::hideText(), true;
        QToolTip::showText(help->globalPos(),
                           tr("%1 s, around %2: %3\nclick to see the allocator's state there")
                               .arg(timeAtX(help->pos().x()), 0, 'f', 6)
                               .arg(QString::fromStdString(hexAddress(grid_.addressOfRow(row))))
                               .arg(tr(kCellNames[grid_.at(row, c)])),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace vs::ui
