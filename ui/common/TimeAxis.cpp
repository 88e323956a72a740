#include "common/TimeAxis.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace vs::ui {

QRect TimeAxis::plotRect(const QWidget& view) {
    const QFontMetrics fm = view.fontMetrics();
    const int left = fm.horizontalAdvance(QStringLiteral("000.0 MiB")) + 12;
    return view.rect().adjusted(left, fm.height() + 8, -10, -(2 * fm.height() + 8));
}

void TimeAxis::fitCapture(double lastSeconds) {
    if (following_) return;
    const double end = std::max(lastSeconds, 1e-3);
    from_ = -end * 0.01, to_ = end * 1.01;
}

bool TimeAxis::follow(double from, double to) {
    if (!(to > from)) return false;
    following_ = true;
    from_ = from, to_ = to;
    return true;
}

double TimeAxis::xOf(double seconds, const QRect& plot) const {
    return plot.left() + (seconds - from_) / (to_ - from_) * plot.width();
}

double TimeAxis::secondsAt(double x, const QRect& plot) const {
    return from_ + (x - plot.left()) / std::max(1, plot.width()) * (to_ - from_);
}

void TimeAxis::paint(QPainter& p, const QRect& plot, const QWidget& view) const {
    const QFontMetrics fm = view.fontMetrics();
    p.setPen(view.palette().color(QPalette::WindowText));
    p.drawLine(plot.bottomLeft() + QPoint(-1, 1), plot.bottomRight() + QPoint(0, 1));
    p.drawLine(plot.bottomLeft() + QPoint(-1, 1), plot.topLeft() + QPoint(-1, 0));
    const int labelWidth = fm.horizontalAdvance(QStringLiteral("0.00000")) * 2;
    QCPAxisTicker ticker; // the timeline's x axis ticks
    ticker.setTickCount(std::max(1, plot.width() / labelWidth));
    QVector<double> ticks;
    QVector<QString> labels;
    ticker.generate(QCPRange(from_, to_), view.locale(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
    for (qsizetype k = 0; k < ticks.size(); ++k) {
        const int x = int(std::lround(xOf(ticks[k], plot)));
        if (x < plot.left() || x > plot.right()) continue;
        p.drawLine(x, plot.bottom() + 1, x, plot.bottom() + 5);
        p.drawText(QRect(x - labelWidth / 2, plot.bottom() + 6, labelWidth, fm.height()),
                   Qt::AlignHCenter | Qt::AlignTop, labels[k]);
    }
    p.drawText(QRect(plot.left(), plot.bottom() + 6 + fm.height(), plot.width(), fm.height()),
               Qt::AlignCenter, QCoreApplication::translate("TimeAxis", "time since first event (s)"));
}

} // namespace vs::ui
