#pragma once
// The memory map over time: reserved address space (rows, packed) by time (columns), each cell
// coloured by what occupies it (allocated, pending free, free, not reserved). Leaks show as bands
// that widen, fragmentation as speckled free space. A legend names the colours, a left axis the
// packed bytes and a bottom axis the time, on the timeline's clock and range. Hover tells the time
// and address; a click moves the cursor there and selects the block at that address.
#include "analysis/composition/Fragmentation.h"
#include "common/TimeAxis.h"

#include <QImage>
#include <QWidget>

namespace vs::ui {

class Session;

class MemoryMapView : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryMapView(QWidget* parent = nullptr);
    void setGrid(OccupancyGrid grid, std::vector<double> columnSeconds);
    // Shows the session's device: its grid is computed by the session's runner at every device change.
    void follow(Session* session);
    const OccupancyGrid& grid() const { return grid_; }
    // The grid cell under a widget point: column and row, or -1.
    std::pair<int, int> cellAt(QPoint p) const;
    // The time axis shown, seconds since the capture's first event: the timeline's visible range,
    // so that a moment is at the same place in both (the whole capture until set).
    void setTimeRange(double from, double to);
    std::pair<double, double> timeRange() const { return axis_.range(); }
    double timeAtX(int x) const;
    QRect plotRect() const; // the cells, inside the axes and the legend

  signals:
    void cellClicked(uint32_t eventsApplied, uint64_t address);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

  private:
    void compute();
    void resample(); // the grid's columns (even in events) laid out on the time axis, one per pixel
    int columnAt(double seconds) const;
    void paintAxes(QPainter& p, const QRect& plot) const;
    void paintLegend(QPainter& p) const;
    TimeAxis axis_;
    QImage onTime_; // plotRect().width() columns
    Session* session_ = nullptr;
    bool stale_ = false; // the capture grew while hidden
    OccupancyGrid grid_;
    std::vector<double> seconds_;
    QImage image_;
    QRgb colours_[4] = {}; // by OccupancyGrid::Cell
};

} // namespace vs::ui
