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

// A left axis of these ticks beside `plot` (0 at its bottom, `top` bytes at its top), for the views
// that paint their own axes (allocation bands, memory map).
void paintByteAxis(QPainter& p, const QRect& plot, double top, const QWidget& view);

} // namespace vs::ui
