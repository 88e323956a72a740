#pragma once
// A light fill between two level-of-detail series, drawn as one axis-aligned rectangle per segment
// (from each point to the next, at that point's lower and upper value). A min/max band is exactly
// that per pixel column, and axis-aligned rectangles are the raster engine's fast path: QCPGraph's
// polygon fill of a jagged 3000-vertex band took 40-140 ms per repaint, these take under 2 ms.
#include <qcustomplot.h>

#include <vector>

namespace vs::ui {

class ColumnFill : public QCPAbstractPlottable {
    Q_OBJECT
  public:
    ColumnFill(QCPAxis* key, QCPAxis* value);
    // Points in key order; each holds until the next key. lower <= upper is not required.
    void setData(std::vector<double> keys, std::vector<double> lower, std::vector<double> upper);
    size_t size() const { return keys_.size(); }

    double selectTest(const QPointF&, bool, QVariant* = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

  protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

  private:
    std::vector<double> keys_, lower_, upper_;
};

} // namespace vs::ui
