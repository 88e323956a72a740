#include "timeline/FoldedTimeTicker.h"

#include <cmath>

namespace vs::ui {

// The step for the seconds actually drawn at slope 1 (a folded 6 s start-up is not 6 s of axis).
double FoldedTimeTicker::getTickStep(const QCPRange& range) {
    if (!fold_->folded()) return QCPAxisTicker::getTickStep(range);
    double shown = 0;
    for (const auto& p : fold_->pieces(range.lower, range.upper))
        if (!p.folded) shown += p.secondsTo - p.secondsFrom;
    return QCPAxisTicker::getTickStep(QCPRange(0, shown > 0 ? shown : range.size()));
}

int FoldedTimeTicker::getSubTickCount(double tickStep) {
    // sub-ticks are spaced evenly on the axis, which is not even in seconds across a gap
    return fold_->folded() ? 0 : QCPAxisTicker::getSubTickCount(tickStep);
}

QString FoldedTimeTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) {
    return QCPAxisTicker::getTickLabel(fold_->toSeconds(tick), locale, formatChar, precision);
}

QVector<double> FoldedTimeTicker::createTickVector(double tickStep, const QCPRange& range) {
    if (!fold_->folded()) return QCPAxisTicker::createTickVector(tickStep, range);
    QVector<double> ticks;
    for (const auto& p : fold_->pieces(range.lower, range.upper)) {
        if (p.folded || tickStep <= 0) continue;
        // multiples of the step within the piece's seconds, placed where those seconds are drawn
        const double first = std::ceil(p.secondsFrom / tickStep), last = std::floor(p.secondsTo / tickStep);
        for (double k = first; k <= last && ticks.size() < 1000; ++k)
            ticks.push_back(fold_->toAxis(k * tickStep));
    }
    return ticks;
}

} // namespace vs::ui
