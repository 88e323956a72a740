#include "models/DiffTableModel.h"

#include "common/SignedBytes.h"

#include <QBrush>
#include <QColor>

namespace vs::ui {

void DiffTableModel::setRows(std::shared_ptr<const CaptureDiff> diff, const std::vector<DiffRow>& rows) {
    beginResetModel();
    diff_ = std::move(diff), rows_ = &rows;
    endResetModel();
}

int DiffTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_->size());
}
int DiffTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

namespace {

int64_t number(const DiffRow& r, int column) {
    switch (column) {
    case DiffTableModel::LiveA:
        return r.liveA;
    case DiffTableModel::LiveB:
        return r.liveB;
    case DiffTableModel::LiveDelta:
        return r.liveDelta();
    case DiffTableModel::PeakA:
        return r.peakA;
    case DiffTableModel::PeakB:
        return r.peakB;
    case DiffTableModel::PeakDelta:
        return r.peakDelta();
    default:
        return 0;
    }
}

QString site(const DiffRow& r) {
    return QString::fromUtf8(r.site.data(), qsizetype(r.site.size()));
}

} // namespace

QVariant DiffTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || size_t(index.row()) >= rows_->size()) return {};
    const DiffRow& r = (*rows_)[size_t(index.row())];
    const int c = index.column();
    const bool delta = c == LiveDelta || c == PeakDelta;
    if (role == Qt::DisplayRole) {
        if (c == Change) return QString::fromUtf8(diffChangeName(r.change).data());
        if (c == Site) return site(r);
        return delta ? formatSignedBytes(number(r, c)) : formatBytes(double(number(r, c)));
    }
    if (role == kSortRole) {
        if (c == Change) return int(r.change);
        if (c == Site) return site(r);
        return qlonglong(number(r, c));
    }
    if (role == Qt::ForegroundRole && delta && number(r, c) != 0) return QBrush(deltaColour(number(r, c)));
    if (role == Qt::TextAlignmentRole && c != Site && c != Change)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && c == Site) {
        if (r.frames.empty()) return r.site.empty() ? tr("(no stack recorded)") : site(r);
        QString t;
        for (const auto& f : r.frames) t += QString::fromStdString(f) + QLatin1Char('\n');
        return t.trimmed();
    }
    return {};
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Change",        "Site",      "Live A",    "Live B",
                                  "Live B\u2212A", "At peak A", "At peak B", "At peak B\u2212A"};
    return tr(names[section]);
}

} // namespace vs::ui
