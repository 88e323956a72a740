#include "models/RetentionGroupModel.h"

#include "util/Format.h"

#include <QFont>

namespace vs::ui {

namespace {
QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
} // namespace

void RetentionGroupModel::setResult(std::shared_ptr<const RetentionResult> result) {
    beginResetModel();
    result_ = std::move(result);
    endResetModel();
}

int RetentionGroupModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !result_ ? 0 : int(result_->groups.size());
}

int RetentionGroupModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RetentionGroupModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_) return {};
    const auto& g = result_->groups[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Bytes:
            return QString::fromStdString(humanBytes(int64_t(g.bytes)));
        case Blocks:
            return qulonglong(g.blocks.size());
        case HeldBy:
            return text(retentionVerdictShort(g.verdict));
        default:
            return QString::fromStdString(g.signature);
        }
    case SortRole:
        switch (index.column()) {
        case Bytes:
            return qulonglong(g.bytes);
        case Blocks:
            return qulonglong(g.blocks.size());
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        if (index.column() == HeldBy) return text(retentionVerdictText(g.verdict));
        if (index.column() == Signature) return QString::fromStdString(g.signature);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() <= Blocks ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::FontRole: {
        if (!g.suspicious) return {};
        QFont f;
        f.setBold(true);
        return f;
    }
    case GroupRole:
        return index.row();
    case SuspiciousRole:
        return g.suspicious ? QStringLiteral("1") : QStringLiteral("0");
    default:
        return {};
    }
}

QVariant RetentionGroupModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Bytes:
        return tr("GPU bytes");
    case Blocks:
        return tr("Blocks");
    case HeldBy:
        return tr("Held by");
    default:
        return tr("Path signature");
    }
}

} // namespace vs::ui
