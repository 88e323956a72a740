#include "views/panels/OomRequestBars.h"

#include "common/ByteAxisTicker.h"

#include <QPainter>

#include <algorithm>

namespace vs::ui {

OomRequestBars::OomRequestBars(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    setToolTip(tr("The request that failed and the largest free block it could have used, to one scale: "
                  "the block is highlighted in the map below"));
    hide();
}

void OomRequestBars::setSizes(uint64_t request, uint64_t largestFree) {
    request_ = request, largestFree_ = largestFree;
    show();
    update();
}

QSize OomRequestBars::sizeHint() const {
    return {200, 2 * fontMetrics().height() + 10};
}

void OomRequestBars::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const int line = fontMetrics().height() + 4;
    const QString labels[2] = {tr("failed request %1").arg(formatBytes(double(request_))),
                               tr("largest free block %1").arg(formatBytes(double(largestFree_)))};
    const int text =
        std::max(fontMetrics().horizontalAdvance(labels[0]), fontMetrics().horizontalAdvance(labels[1]));
    const double scale =
        double(std::max(1, width() - text - 12)) / double(std::max({request_, largestFree_, uint64_t(1)}));
    const QColor colours[2] = {QColor(192, 57, 43), palette().color(QPalette::Highlight)};
    const uint64_t sizes[2] = {request_, largestFree_};
    for (int i = 0; i < 2; ++i) {
        const QRectF bar(0, i * line + 2, std::max(2.0, double(sizes[i]) * scale), line - 6);
        p.fillRect(bar, i == 0 ? QBrush(colours[0], Qt::BDiagPattern) : QBrush(colours[1]));
        p.setPen(colours[i]);
        p.drawRect(bar);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRectF(bar.right() + 8, i * line, text + 4, line), Qt::AlignVCenter, labels[i]);
    }
}

} // namespace vs::ui
