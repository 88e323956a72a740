#include "common/ByteAxisTicker.h"

#include <QPainter>
#include <QWidget>

#include <cmath>

namespace vs::ui {

QString formatBytes(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = std::fabs(bytes);
    int u = 0;
    while (v >= 1024 && u < 4) v /= 1024, ++u;
    const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
    if (u == 0) return sign + QString::number(v, 'f', 0) + " B";
    return sign + QString::number(v, 'f', v < 10 ? 2 : v < 100 ? 1 : 0) + ' ' + units[u];
}

// One unit for the whole axis (chosen from the range's top), with steps of 1, 2 or 5 x 10^k of it,
// so labels read 0, 0.5 GiB, 1.0 GiB, 1.5 GiB rather than mixing MiB and GiB.
double ByteAxisTicker::getTickStep(const QCPRange& range) {
    unit_ = 1;
    while (unit_ * 1024 <= std::max(std::fabs(range.upper), std::fabs(range.lower))) unit_ *= 1024;
    const double target = range.size() / unit_ / std::max(1, tickCount());
    if (!(target > 0)) return unit_;
    const double decade = std::pow(10.0, std::floor(std::log10(target)));
    double step = decade * 10;
    for (double m : {1.0, 2.0, 5.0})
        if (decade * m >= target) {
            step = decade * m;
            break;
        }
    decimals_ = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step)));
    return step * unit_;
}

void paintByteAxis(QPainter& p, const QRect& plot, double top, const QWidget& view) {
    if (!(top > 0)) return;
    const QFontMetrics fm = view.fontMetrics();
    ByteAxisTicker bytes;
    bytes.setTickCount(std::max(2, plot.height() / (3 * fm.height())));
    QVector<double> ticks;
    QVector<QString> labels;
    bytes.generate(QCPRange(0, top), view.locale(), QLatin1Char('g'), 6, ticks, nullptr, &labels);
    p.setPen(view.palette().color(QPalette::WindowText));
    for (qsizetype k = 0; k < ticks.size(); ++k) {
        const int y = plot.bottom() - int(std::lround(ticks[k] / top * plot.height()));
        if (y < plot.top() - 1) continue;
        p.drawLine(plot.left() - 5, y, plot.left() - 1, y);
        p.drawText(QRect(0, y - fm.height() / 2, plot.left() - 8, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, labels[k]);
    }
}

QString ByteAxisTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    for (double x = unit_; x >= 1024 && u < 5; x /= 1024) ++u;
    if (std::fabs(tick) < unit_ * 1e-9) return QStringLiteral("0");
    return QString::number(tick / unit_, 'f', decimals_) + ' ' + units[u];
}

} // namespace vs::ui
