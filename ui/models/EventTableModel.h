#pragma once
// The event list: a virtualised table over one device's event columns (millions of rows).
#include "session/CaptureLoader.h"

#include <QAbstractTableModel>

#include <vector>

namespace vs::ui {

class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // The sections of the table; Stream is left out while the capture has a single stream (its
    // width goes to the site, so the table fits a 1280 px window without scrolling sideways).
    enum Column { Index, Time, Action, Address, Size, Stream, Allocated, Reserved, Site, ColumnCount };
    Column columnAt(int section) const { return Column(!streamShown_ && section >= Stream ? section + 1 : section); }

    explicit EventTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setDevice(AnalysisPtr analysis, size_t device, int64_t originUs);
    // A live session grew the capture shown (the same rows first, more after): inserts the new rows.
    void appendRows(AnalysisPtr grown);
    size_t device() const { return device_; }
    AnalysisPtr analysis() const { return analysis_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // Row of the last event at or before `seconds` (0 if none).
    int rowAtTime(double seconds) const;
    double timeOfRow(int row) const;
    // Rows tinted as marked (a group's allocations); ascending event indices.
    void setMarkedEvents(std::vector<uint32_t> events);
    const std::vector<uint32_t>& markedEvents() const { return marked_; }
    // The next (or previous) marked row after `row`, wrapping around; -1 when none is marked.
    int nextMarked(int row, bool forward) const;

  private:
    QString siteOf(size_t event) const;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    int64_t originUs_ = 0;
    std::vector<uint32_t> marked_;
    bool streamShown_ = true;
};

} // namespace vs::ui
