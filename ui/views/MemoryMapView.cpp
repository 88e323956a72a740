#include "views/MemoryMapView.h"

#include "session/Session.h"
#include "common/Throttle.h"

#include "util/Format.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace vs::ui {

MemoryMapView::MemoryMapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(60);
}

void MemoryMapView::follow(Session* session) {
    session_ = session;
    connect(session_, &Session::deviceChanged, this, &MemoryMapView::compute);
    auto* live = new Throttle(2000, [this] { compute(); }, this); // O(events) per grid: not per refresh
    connect(session_, &Session::extended, live, &Throttle::request);
}

void MemoryMapView::compute() {
    const AnalysisPtr a = session_->analysis();
    const size_t d = session_->device();
    session_->jobs().run<OccupancyGrid>(
        QStringLiteral("memory map"),
        [a, d](const std::atomic<bool>&) {
            return occupancyGrid(a->trace(d), a->capture().streams, a->replay(d), a->rules(), 800, 300);
        },
        [this, d](const OccupancyGrid& grid) {
            std::vector<double> seconds;
            for (uint32_t e : grid.columnEvents) seconds.push_back(e ? session_->secondsAt(d, e - 1) : 0.0);
            setGrid(grid, std::move(seconds));
        });
}

void MemoryMapView::setGrid(OccupancyGrid grid, std::vector<double> columnSeconds) {
    grid_ = std::move(grid);
    seconds_ = std::move(columnSeconds);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QRgb colours[] = {
        palette().color(QPalette::Base).rgb(), (dark ? QColor(70, 70, 74) : QColor(215, 215, 215)).rgb(),
        QColor(220, 160, 0).rgb(), (dark ? QColor(94, 168, 255) : QColor(31, 102, 196)).rgb()};
    image_ = QImage(std::max(grid_.columns, 1), std::max(grid_.rows, 1), QImage::Format_RGB32);
    image_.fill(colours[0]);
    for (int r = 0; r < grid_.rows; ++r) // low addresses at the bottom
        for (int c = 0; c < grid_.columns; ++c)
            image_.setPixel(c, grid_.rows - 1 - r, colours[grid_.at(r, c)]);
    update();
}

QRect MemoryMapView::plotRect() const {
    return rect().adjusted(2, 2, -2, -2);
}

std::pair<int, int> MemoryMapView::cellAt(QPoint p) const {
    const QRect r = plotRect();
    if (!r.contains(p) || grid_.columns == 0) return {-1, -1};
    const int c = (p.x() - r.left()) * grid_.columns / std::max(1, r.width());
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
    p.drawImage(plotRect(), image_); // scaled: columns are moments, rows packed addresses
}

void MemoryMapView::mousePressEvent(QMouseEvent* e) {
    const auto [c, row] = cellAt(e->position().toPoint());
    if (c < 0) return;
    emit cellClicked(grid_.columnEvents[size_t(c)], grid_.addressOfRow(row));
}

bool MemoryMapView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const auto [c, row] = cellAt(help->pos());
        if (c < 0) return QToolTip::hideText(), true;
        static const char* names[] = {"not reserved", "free (cached)", "pending free", "allocated"};
        QToolTip::showText(help->globalPos(),
                           tr("%1 s, around %2: %3\nclick to see the allocator's state there")
                               .arg(c < int(seconds_.size()) ? seconds_[size_t(c)] : 0.0, 0, 'f', 6)
                               .arg(QString::fromStdString(hexAddress(grid_.addressOfRow(row))))
                               .arg(tr(names[grid_.at(row, c)])),
                           this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace vs::ui
