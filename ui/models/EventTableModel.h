#pragma once
// The event list: a virtualised table over one device's event columns (millions of rows).
#include "session/CaptureLoader.h"

#include <QAbstractTableModel>

#include <algorithm>
#include <vector>

namespace vs::ui {

// Its rows are a page of at most pageRows() consecutive events (a million by default): a QTableView
// keeps 8-16 bytes per row in its vertical header (hidden or not), 1.3 GB for 100M events, so a
// larger capture is shown a page at a time, moved by rowOf() and pageAround() (EventTableView moves
// it as the user scrolls past either end). Row r is event firstEvent() + r.
class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // The sections of the table; Stream is left out while the capture has a single stream (its
    // width goes to the site, so the table fits a 1280 px window without scrolling sideways).
    enum Column { Index, Time, Action, Address, Size, Stream, Allocated, Reserved, Site, ColumnCount };
    Column columnAt(int section) const {
        return Column(!streamShown_ && section >= Stream ? section + 1 : section);
    }
    static constexpr size_t kPageRows = size_t{1} << 20;

    explicit EventTableModel(QObject* parent = nullptr, size_t pageRows = kPageRows)
        : QAbstractTableModel(parent), pageRows_(std::max<size_t>(pageRows, 1)) {}
    void setDevice(AnalysisPtr analysis, size_t device, int64_t originUs);
    // A live session grew the capture shown (the same rows first, more after): inserts the new rows.
    void appendRows(AnalysisPtr grown);
    size_t device() const { return device_; }
    AnalysisPtr analysis() const { return analysis_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    size_t eventCount() const; // the device's, on every page
    size_t pageRows() const { return pageRows_; }
    size_t firstEvent() const { return first_; }
    size_t eventOf(int row) const { return first_ + size_t(row); }
    // The row of `event`, after moving the page to centre it when it lies outside (a reset).
    int rowOf(size_t event);
    // Moves the page to centre `event` (clamped to the capture); false when it stays where it is.
    bool pageAround(size_t event);
    bool hasEarlier() const { return first_ > 0; }
    bool hasLater() const { return first_ + size_t(rowCount()) < eventCount(); }

    // The last event at or before `seconds` (0 if none), and an event's time.
    size_t eventAtTime(double seconds) const;
    double timeOfEvent(size_t event) const;
    // Events tinted as marked (a group's allocations); ascending event indices.
    void setMarkedEvents(std::vector<uint32_t> events);
    const std::vector<uint32_t>& markedEvents() const { return marked_; }
    // The next (or previous) marked event after `event` (-1: from the start or the end), wrapping
    // around; -1 when none is marked.
    int64_t nextMarked(int64_t event, bool forward) const;

  private:
    QString siteOf(size_t event) const;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    int64_t originUs_ = 0;
    size_t pageRows_;
    size_t first_ = 0;
    std::vector<uint32_t> marked_;
    bool streamShown_ = true;
};

} // namespace vs::ui
