#include "views/panels/Sparkline.h"

#include "common/ByteAxisTicker.h"

#include <QPainter>

#include <algorithm>

namespace vs::ui {

Sparkline::Sparkline(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(46);
    setMaximumHeight(60);
    setToolTip(tr("Live bytes of the selected group's stack over the whole capture; the window is shaded"));
}

void Sparkline::setSeries(std::vector<std::pair<double, double>> points, double end, double windowFrom,
                          double windowTo, const QString& caption) {
    points_ = std::move(points);
    end_ = std::max(end, 1e-9), from_ = windowFrom, to_ = windowTo;
    caption_ = caption;
    update();
}

void Sparkline::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const QRectF area = QRectF(rect()).adjusted(2, 14, -2, -2);
    auto x = [&](double t) { return area.left() + area.width() * std::clamp(t / end_, 0.0, 1.0); };
    QColor shade = palette().color(QPalette::Highlight);
    shade.setAlpha(35);
    p.fillRect(QRectF(x(from_), area.top(), std::max(1.0, x(to_) - x(from_)), area.height()), shade);
    p.setPen(palette().color(QPalette::Text));
    double top = 1;
    for (const auto& pt : points_) top = std::max(top, pt.second);
    p.drawText(QRectF(rect()).adjusted(3, 0, -3, 0), Qt::AlignTop | Qt::AlignLeft,
               caption_.isEmpty() ? tr("select a group to see its live bytes over time")
                                  : caption_ + QStringLiteral(" \u2014 up to ") + formatBytes(top));
    if (points_.empty()) return;
    // One vertical span per pixel column (its lowest and highest value) joined by the step between
    // columns: a group of a 2M-event capture has ~10^5 points, a path through them took seconds.
    auto y = [&](double v) { return area.bottom() - area.height() * v / top; };
    const int left = int(area.left()), width = std::max(1, int(area.width()));
    std::vector<double> lo(size_t(width), -1), hi(size_t(width), -1), close(size_t(width), -1);
    double last = 0;
    int column = 0;
    auto extend = [&](int c, double v) {
        if (lo[size_t(c)] < 0) lo[size_t(c)] = hi[size_t(c)] = v;
        lo[size_t(c)] = std::min(lo[size_t(c)], v), hi[size_t(c)] = std::max(hi[size_t(c)], v);
        close[size_t(c)] = v;
    };
    for (const auto& [t, v] : points_) {
        const int c = std::clamp(int(x(t)) - left, 0, width - 1);
        for (; column < c; ++column) extend(column, last); // the step holds across empty columns
        extend(c, v);
        last = v;
    }
    for (; column < width; ++column) extend(column, last);
    p.setPen(QPen(palette().color(QPalette::Highlight), 1));
    double previous = y(0);
    for (int c = 0; c < width; ++c) {
        const double x0 = left + c;
        p.drawLine(QPointF(x0, previous), QPointF(x0, y(lo[size_t(c)])));
        p.drawLine(QPointF(x0, y(lo[size_t(c)])), QPointF(x0, y(hi[size_t(c)])));
        previous = y(close[size_t(c)]);
    }
}

} // namespace vs::ui
