#pragma once
// Y-axis ticks at round byte sizes (1, 2, 5 x 1024^k) labelled in B/KiB/MiB/GiB.
#include <qcustomplot.h>

namespace vs::ui {

class ByteAxisTicker : public QCPAxisTicker {
  protected:
    double getTickStep(const QCPRange& range) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

  private:
    double unit_ = 1;
    int decimals_ = 0;
};

QString formatBytes(double bytes);

} // namespace vs::ui
