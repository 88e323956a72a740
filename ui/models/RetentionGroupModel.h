#pragma once
// The Retention tab's groups over one immutable analysis result: a row per group of blocks kept
// alive by the same kind of path (largest first, as analyseRetention orders them). A proxy filters
// on SuspiciousRole (the "suspicious holders only" box) and sorts on SortRole.
#include "analysis/retention/Retention.h"

#include <QAbstractTableModel>

#include <memory>

namespace vs::ui {

class RetentionGroupModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Bytes, Blocks, HeldBy, Signature, ColumnCount };
    static constexpr int GroupRole = Qt::UserRole + 2;      // index into the result's groups
    static constexpr int SuspiciousRole = Qt::UserRole + 3; // "1" or "0", for a filter proxy
    static constexpr int SortRole = Qt::UserRole + 4;       // numbers as numbers

    using QAbstractTableModel::QAbstractTableModel;
    void setResult(std::shared_ptr<const RetentionResult> result);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    std::shared_ptr<const RetentionResult> result_;
};

} // namespace vs::ui
