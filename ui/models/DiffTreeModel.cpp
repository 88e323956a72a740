#include "models/DiffTreeModel.h"

#include "common/SignedBytes.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace vs::ui {

void DiffTreeModel::setTree(DiffTree tree) {
    beginResetModel();
    tree_ = std::move(tree);
    endResetModel();
}

QModelIndex DiffTreeModel::index(int row, int column, const QModelIndex& parent) const {
    const auto& kids = tree_.node(nodeOf(parent)).children;
    if (row < 0 || size_t(row) >= kids.size()) return {};
    return createIndex(row, column, quintptr(kids[size_t(row)]));
}

QModelIndex DiffTreeModel::parent(const QModelIndex& child) const {
    const uint32_t n = nodeOf(child);
    if (n == 0) return {};
    const uint32_t p = tree_.node(n).parent;
    if (p == 0) return {};
    const auto& siblings = tree_.node(tree_.node(p).parent).children;
    const int row = int(std::find(siblings.begin(), siblings.end(), p) - siblings.begin());
    return createIndex(row, 0, quintptr(p));
}

int DiffTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return int(tree_.node(nodeOf(parent)).children.size());
}

int DiffTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant DiffTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const DiffNode& n = tree_.node(nodeOf(index));
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Frame: return QString::fromStdString(n.frame);
        case A: return formatBytes(double(n.a));
        case B: return formatBytes(double(n.b));
        case Delta: return formatSignedBytes(n.delta());
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Delta && n.delta() != 0)
        return QBrush(deltaColour(n.delta()));
    if (role == Qt::TextAlignmentRole && index.column() != Frame) return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant DiffTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Call path", "A", "B", "B\u2212A"};
    return tr(names[section]);
}

} // namespace vs::ui
