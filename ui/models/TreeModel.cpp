#include "models/TreeModel.h"

namespace vs::ui {

QModelIndex TreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= columns_ || parent.column() > 0) return {};
    const Node p = nodeOf(parent);
    return row < childCount(p) ? createIndex(row, column, childAt(p, row)) : QModelIndex();
}

QModelIndex TreeModel::parent(const QModelIndex& child) const {
    const Node n = nodeOf(child);
    if (n == kRoot) return {};
    const Node p = parentOf(n);
    return p == kRoot ? QModelIndex() : createIndex(rowOf(p), 0, p);
}

int TreeModel::rowCount(const QModelIndex& parent) const {
    return parent.column() > 0 ? 0 : childCount(nodeOf(parent));
}

int TreeModel::columnCount(const QModelIndex&) const {
    return columns_;
}

} // namespace vs::ui
