#pragma once
// The memory map over time: reserved address space (rows, packed) by time (columns), each cell
// coloured by what occupies it (allocated, pending free, free, not reserved). Leaks show as bands
// that widen, fragmentation as speckled free space. Hover tells the time and address; a click
// moves the cursor there and selects the block at that address.
#include "analysis/Fragmentation.h"

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

  signals:
    void cellClicked(uint32_t eventsApplied, uint64_t address);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    bool event(QEvent* e) override;

  private:
    void compute();
    QRect plotRect() const;
    Session* session_ = nullptr;
    OccupancyGrid grid_;
    std::vector<double> seconds_;
    QImage image_;
};

} // namespace vs::ui
