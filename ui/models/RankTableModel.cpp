#include "models/RankTableModel.h"

#include "common/ByteAxisTicker.h"

#include <QBrush>
#include <QColor>
#include <QFileInfo>

namespace vs::ui {

void RankTableModel::setRanks(std::shared_ptr<const RankSet> set) {
    beginResetModel();
    set_ = std::move(set);
    outlierOf_.assign(set_ ? set_->ranks.size() : 0, -1);
    if (set_)
        for (size_t k = 0; k < set_->outliers.size(); ++k) outlierOf_[set_->outliers[k].index] = int(k);
    endResetModel();
}

int RankTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !set_ ? 0 : int(set_->ranks.size());
}
int RankTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const RankOutlier* RankTableModel::outlier(size_t row) const {
    return outlierOf_[row] < 0 ? nullptr : &set_->outliers[size_t(outlierOf_[row])];
}

namespace {

int64_t number(const RankSummary& r, int column) {
    switch (column) {
    case RankTableModel::Rank:
        return r.rank;
    case RankTableModel::PeakAllocated:
        return r.peakAllocated;
    case RankTableModel::PeakReserved:
        return r.peakReserved;
    case RankTableModel::Final:
        return r.finalAllocated;
    case RankTableModel::Growth:
        return r.growth;
    case RankTableModel::Ooms:
        return r.ooms;
    case RankTableModel::Iterations:
        return int64_t(r.iterations);
    default:
        return 0;
    }
}

bool isBytes(int column) {
    return column >= RankTableModel::PeakAllocated && column <= RankTableModel::Growth;
}

} // namespace

QVariant RankTableModel::data(const QModelIndex& index, int role) const {
    if (!set_ || !index.isValid() || size_t(index.row()) >= set_->ranks.size()) return {};
    const RankSummary& r = set_->ranks[size_t(index.row())];
    const int c = index.column();
    const RankOutlier* o = outlier(size_t(index.row()));
    if (role == Qt::DisplayRole) {
        if (c == File) return QFileInfo(QString::fromStdString(r.path)).fileName();
        if (c == Outlier) return !r.ok() ? tr("unreadable") : o ? tr("outlier") : QString();
        if (!r.ok() && c != Rank) return QString();
        return isBytes(c) ? formatBytes(double(number(r, c))) : QString::number(number(r, c));
    }
    if (role == kSortRole) {
        if (c == File) return QString::fromStdString(r.path);
        if (c == Outlier) return o ? 1 : 0;
        return qlonglong(number(r, c));
    }
    if (role == Qt::ToolTipRole)
        return !r.ok() ? QString::fromStdString(r.error)
               : o     ? QString::fromStdString(o->sentence)
                       : QString();
    if (role == Qt::ForegroundRole && (o || !r.ok()) && (c == Outlier || c == Rank))
        return QBrush(QColor(200, 50, 40));
    if (role == Qt::TextAlignmentRole && c != File && c != Outlier)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant RankTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Rank",   "Peak allocated", "Peak reserved", "Final allocated",
                                  "Growth", "OOMs",           "Iterations",    "",
                                  "File"};
    return tr(names[section]);
}

} // namespace vs::ui
