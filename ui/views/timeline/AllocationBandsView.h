#pragma once
// "Allocation bands": PyTorch memory_viz's Active Memory Timeline in vramscope. Every large live
// allocation is a coloured band stacked over time (core/analysis/AllocationBands), the smaller ones
// one grey band on top whose upper edge is the allocated series. Hover names the allocation under
// the mouse (size, address, alloc and free time, frames); a click selects its alloc event in the
// session. The layout is computed by the session's runner; a paint draws only the bands under the
// visible range that are at least half a pixel tall, each as at most one rectangle per pixel column.
#include "analysis/categories/Categories.h"
#include "analysis/composition/AllocationBands.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/replay/TimelineLod.h"
#include "common/TimeAxis.h"
#include "session/CaptureLoader.h"

#include <QImage>
#include <QWidget>

#include <functional>

#include <memory>
#include <optional>

namespace vs::ui {

class Session;

class AllocationBandsView : public QWidget {
    Q_OBJECT
  public:
    // What the runner computes per device, shown as one immutable value.
    struct Layout {
        std::shared_ptr<const AllocationBands> bands;
        std::shared_ptr<const TimelineLod> allocated; // the summarized band's top edge
        // What each allocation is (docs/categories.md), when the capture can tell (tags or phases)
        std::shared_ptr<const DeviceCategories> categories;
        // Per band, the CUDA graph private pool holding it (default: none); drawn striped
        std::vector<PoolId> pools;
        size_t pooled = 0; // bands in a private pool
    };
    static Layout compute(const AnalysisPtr& analysis, size_t device,
                          const std::atomic<bool>* cancel = nullptr);

    explicit AllocationBandsView(QWidget* parent = nullptr);
    // Shows the session's device: laid out again at every device change and (at most every 2 s, while
    // shown) as a live capture grows.
    void follow(Session* session);
    void setLayout(AnalysisPtr analysis, size_t device, Layout layout);
    const Layout& layout() const { return layout_; }
    // Seconds since the capture's first event, as on the timeline (the whole capture until set).
    void setTimeRange(double from, double to);
    std::pair<double, double> timeRange() const { return axis_.range(); }
    QRect plotRect() const;
    // The band under a widget point (index into layout().bands->bands()), if any.
    std::optional<size_t> bandAt(QPoint p) const;
    QString describe(size_t band) const; // the hover text
    bool inGraphPool(size_t band) const; // a CUDA graph private pool's allocation (striped)
    size_t bandsDrawn() const { return drawn_; }
    // Colour the bands by category (parameter, gradient, activation...) instead of by site; also on
    // the right-click menu. Without categories in the layout, by site.
    void setColourByCategory(bool on);
    bool colourByCategory() const { return byCategory_; }
    QColor colourOf(size_t band) const;
    double bytesPerPixel() const;

  signals:
    void allocationClicked(uint32_t allocEvent); // after the session selected it

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    bool event(QEvent* e) override;
    void showEvent(QShowEvent* e) override;

  private:
    void recompute();
    double secondsOf(uint32_t event) const;
    std::optional<uint32_t> eventAtX(int x) const; // the last event at or before that moment
    double yScale(const QRect& plot, const TimelineLod::Band& allocated) const; // pixels per byte
    void paintSummarized(const QRect& plot, const TimelineLod::Band& allocated, double pxPerByte) const;
    void forEachRect(const QRect& plot, size_t band, double pxPerByte,
                     const std::function<void(const QRectF&)>& rectangle) const;
    void fill(const QRect& plot, const QRectF& r, QRgb colour, bool striped = false) const;
    void paintAxes(class QPainter& p, const QRect& plot, double pxPerByte) const;

    Session* session_ = nullptr;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    Layout layout_;
    std::vector<double> start_, end_;      // per band, seconds
    const CompactSeries* times_ = nullptr; // the device's event times, held by analysis_
    int64_t originUs_ = 0;
    TimeAxis axis_;
    bool stale_ = false, byCategory_ = false;
    mutable size_t drawn_ = 0;
    mutable QImage canvas_; // the plot's pixels, reused by every paint
    mutable double visibleMax_ = 1;
    std::optional<size_t> hovered_;
};

} // namespace vs::ui
