#pragma once
// The rows of a comparison (sites or stacks whose memory differs between A and B) as a table:
// change, site, live bytes at the end in A and B and their difference, the same at the peak. Numbers
// sort as numbers through kSortRole; the Δ cells are coloured by sign.
#include "compare/CaptureDiff.h"

#include <QAbstractTableModel>

#include <vector>

namespace vs::ui {

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Change, Site, LiveA, LiveB, LiveDelta, PeakA, PeakB, PeakDelta, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit DiffTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setRows(std::vector<DiffRow> rows);
    const DiffRow& row(int i) const { return rows_[size_t(i)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::vector<DiffRow> rows_;
};

} // namespace vs::ui
