#include "timeline/ColumnFill.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace vs::ui {

ColumnFill::ColumnFill(QCPAxis* key, QCPAxis* value) : QCPAbstractPlottable(key, value) {
    setPen(Qt::NoPen);
    setAntialiased(false);
    setAntialiasedFill(false); // whole pixels: no seams, no coverage computation
}

void ColumnFill::setData(std::vector<double> keys, std::vector<double> lower, std::vector<double> upper) {
    keys_ = std::move(keys), lower_ = std::move(lower), upper_ = std::move(upper);
}

QCPRange ColumnFill::getKeyRange(bool& found, QCP::SignDomain) const {
    found = !keys_.empty();
    return found ? QCPRange(keys_.front(), keys_.back()) : QCPRange();
}

QCPRange ColumnFill::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const {
    found = !keys_.empty();
    if (!found) return {};
    const auto [lo, hi] = std::minmax_element(lower_.begin(), lower_.end());
    const auto [lo2, hi2] = std::minmax_element(upper_.begin(), upper_.end());
    return QCPRange(std::min(*lo, *lo2), std::max(*hi, *hi2));
}

void ColumnFill::draw(QCPPainter* painter) {
    QCPAxis* key = keyAxis();
    QCPAxis* value = valueAxis();
    if (!key || !value || keys_.empty() || brush().style() == Qt::NoBrush) return;
    const QRect clip = clipRect();
    const QBrush b = brush();
    painter->setPen(Qt::NoPen);
    applyFillAntialiasingHint(painter); // off: integer rectangles take the raster engine's fast path
    // Points that fall in one pixel column (a min/max band has two per column) are merged into one
    // span of that column, so a translucent fill is drawn once per pixel; past the column only the
    // last of them holds, up to the next point (zoomed in, a segment covers the columns to it). A
    // burst of events in one pixel before a quiet stretch is its extremes in that pixel, then the
    // value it left, not its extremes all the way to the next event.
    int column = INT_MIN, merged = 0;
    double top = 0, bottom = 0;
    struct Last {
        double top, bottom;
        int end;
    } last{0, 0, INT_MIN};
    auto fill = [&](int from, int to, double t, double bt) {
        if (bt > t && to > clip.left() && from <= clip.right())
            painter->fillRect(QRect(from, int(t), std::max(1, to - from), int(bt - t)), b);
    };
    auto flush = [&] {
        if (column == INT_MIN) return;
        if (merged == 1) return fill(column, last.end, last.top, last.bottom);
        fill(column, column + 1, top, bottom);
        if (last.end > column + 1) fill(column + 1, last.end, last.top, last.bottom);
    };
    for (size_t i = 0; i < keys_.size(); ++i) {
        const int x = int(std::lround(key->coordToPixel(keys_[i])));
        const int next = i + 1 < keys_.size() ? int(std::lround(key->coordToPixel(keys_[i + 1]))) : x + 1;
        const double y0 = value->coordToPixel(lower_[i]), y1 = value->coordToPixel(upper_[i]);
        const double t = std::round(std::min(y0, y1)), bt = std::round(std::max(y0, y1));
        if (x != column) {
            flush();
            column = x, merged = 0, top = t, bottom = bt;
        } else {
            top = std::min(top, t), bottom = std::max(bottom, bt);
        }
        ++merged, last = {t, bt, next};
    }
    flush();
}

void ColumnFill::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
    // a bar like the line icons beside it, not a block
    const double h = std::max(3.0, rect.height() / 3);
    painter->fillRect(QRectF(rect.left(), rect.center().y() - h / 2, rect.width(), h), brush());
}

} // namespace vs::ui
