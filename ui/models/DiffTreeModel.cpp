#include "models/DiffTreeModel.h"

#include "common/SignedBytes.h"

#include <QBrush>
#include <QColor>

namespace vs::ui {

void DiffTreeModel::setTree(DiffTree tree) {
    beginResetModel();
    tree_ = std::move(tree);
    endResetModel();
}

QVariant DiffTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const DiffNode& n = tree_.node(uint32_t(nodeOf(index)));
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Frame:
            return QString::fromStdString(n.frame);
        case A:
            return formatBytes(double(n.a));
        case B:
            return formatBytes(double(n.b));
        case Delta:
            return formatSignedBytes(n.delta());
        }
    }
    if (role == Qt::ForegroundRole && index.column() == Delta && n.delta() != 0)
        return QBrush(deltaColour(n.delta()));
    if (role == Qt::TextAlignmentRole && index.column() != Frame)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant DiffTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Call path", "A", "B", "B\u2212A"};
    return tr(names[section]);
}

} // namespace vs::ui
