#pragma once
// The rows of a comparison (sites or stacks whose memory differs between A and B) as a table:
// change, site, live bytes at the end in A and B and their difference, the same at the peak. Numbers
// sort as numbers through kSortRole; the Δ cells are coloured by sign. The site's tooltip is the row's
// stack, or its site where the row carries no frames (past the largest rows: compare/CaptureDiff.h).
#include "compare/CaptureDiff.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace vs::ui {

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Change, Site, LiveA, LiveB, LiveDelta, PeakA, PeakB, PeakDelta, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit DiffTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    // `rows` (the sites or the stacks of `diff`) are shown without a copy; the model keeps `diff`, whose
    // texts the rows name.
    void setRows(std::shared_ptr<const CaptureDiff> diff, const std::vector<DiffRow>& rows);
    const DiffRow& row(int i) const { return (*rows_)[size_t(i)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::shared_ptr<const CaptureDiff> diff_;
    const std::vector<DiffRow>* rows_ = &kNoRows;
    static inline const std::vector<DiffRow> kNoRows;
};

} // namespace vs::ui
