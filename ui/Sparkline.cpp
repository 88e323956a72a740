#include "Sparkline.h"

#include "ByteAxisTicker.h"

#include <QPainter>
#include <QPainterPath>

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
    auto y = [&](double v) { return area.bottom() - area.height() * v / top; };
    QPainterPath path(QPointF(area.left(), y(0)));
    double last = 0;
    for (const auto& [t, v] : points_) {
        path.lineTo(x(t), y(last));
        path.lineTo(x(t), y(v));
        last = v;
    }
    path.lineTo(area.right(), y(last));
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    p.drawPath(path);
}

} // namespace vs::ui
