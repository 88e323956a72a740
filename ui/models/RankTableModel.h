#pragma once
// The ranks of a distributed job as a table: rank, peak allocated and reserved, final, growth,
// OOMs, iterations, whether it stands out (with the sentence as tooltip), the file. Unreadable
// files keep a row with their error.
#include "compare/RankSet.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace vs::ui {

class RankTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Rank,
        PeakAllocated,
        PeakReserved,
        Final,
        Growth,
        Ooms,
        Iterations,
        Outlier,
        File,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit RankTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setRanks(std::shared_ptr<const RankSet> set);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    const RankOutlier* outlier(size_t row) const;
    std::shared_ptr<const RankSet> set_;
    std::vector<int> outlierOf_; // per row: its index in set_->outliers, or -1 (sorting asks per row)
};

} // namespace vs::ui
