#pragma once
// The timeline's time axis when idle gaps are folded (core TimeFold.h): ticks at round seconds
// inside the stretches drawn at slope 1, labelled with their seconds, none inside a gap (its break
// says its length). Unfolded it is QCustomPlot's own ticker.
#include "analysis/replay/TimeFold.h"

#include <qcustomplot.h>

namespace vs::ui {

class FoldedTimeTicker : public QCPAxisTicker {
  public:
    explicit FoldedTimeTicker(const TimeFold* fold) : fold_(fold) {}

  protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
    QVector<double> createTickVector(double tickStep, const QCPRange& range) override;

  private:
    const TimeFold* fold_; // the plot's: it outlives its axes' tickers
};

} // namespace vs::ui
