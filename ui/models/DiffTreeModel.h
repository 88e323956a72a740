#pragma once
// The difference of two captures along call paths (core's DiffTree) as a tree: frame, bytes in A,
// in B, and B − A; children heaviest difference first.
#include "compare/DiffTree.h"

#include <QAbstractItemModel>

namespace vs::ui {

class DiffTreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column { Frame, A, B, Delta, ColumnCount };
    explicit DiffTreeModel(QObject* parent = nullptr) : QAbstractItemModel(parent) {}
    void setTree(DiffTree tree);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    uint32_t nodeOf(const QModelIndex& i) const { return i.isValid() ? uint32_t(i.internalId()) : 0; }
    DiffTree tree_;
};

} // namespace vs::ui
