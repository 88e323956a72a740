#include "models/PeakTableModels.h"

#include "util/Format.h"

#include <QFont>

namespace vs::ui {

namespace {

QString bytes(int64_t b) {
    return QString::fromStdString(humanBytes(b));
}

QVariant alignment(bool numeric) {
    return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
}

} // namespace

void PhaseTableModel::setReport(std::shared_ptr<const PeakReport> report,
                                std::function<double(uint32_t)> seconds) {
    beginResetModel();
    report_ = std::move(report);
    seconds_ = std::move(seconds);
    endResetModel();
}

uint32_t PhaseTableModel::peakEventOf(int row) const {
    return report_ && row >= 0 && size_t(row) < report_->phases.rows.size()
               ? report_->phases.rows[size_t(row)].peakEvent
               : 0;
}

int PhaseTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !report_ ? 0 : int(report_->phases.rows.size());
}

int PhaseTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PhaseTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !report_ || size_t(index.row()) >= report_->phases.rows.size()) return {};
    const PhaseRow& r = report_->phases.rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole) return alignment(index.column() != Phase);
    if (role == Qt::FontRole && size_t(index.row()) == report_->phase) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole)
        return size_t(index.row()) == report_->phase ? tr("The peak of the run is in this phase")
                                                     : tr("Double-click: go to this phase's peak");
    if (role == kSortRole) {
        switch (index.column()) {
        case From:
            return seconds_(r.first);
        case To:
            return seconds_(r.end - 1);
        case Peak:
            return qlonglong(r.peak);
        case Change:
            return r.previousPeak < 0 ? QVariant() : r.risePercent();
        default:
            return index.row();
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Phase:
        return QString::fromStdString(r.name);
    case From:
        return QString::number(seconds_(r.first), 'f', 3);
    case To:
        return QString::number(seconds_(r.end - 1), 'f', 3);
    case Peak:
        return bytes(r.peak);
    case Change:
        return r.previousPeak < 0 ? QString()
                                  : QStringLiteral("%1%2 %")
                                        .arg(r.risePercent() >= 0 ? "+" : "")
                                        .arg(r.risePercent(), 0, 'f', 1);
    default:
        return {};
    }
}

QVariant PhaseTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Phase", "From (s)", "To (s)", "Peak", "Change"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

void LineHolderModel::setReport(std::shared_ptr<const PeakReport> report, const Capture* capture) {
    beginResetModel();
    report_ = std::move(report);
    capture_ = capture;
    endResetModel();
}

int LineHolderModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !report_ ? 0 : int(report_->lines.size());
}

int LineHolderModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LineHolderModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !report_ || size_t(index.row()) >= report_->lines.size()) return {};
    const LineHolder& h = report_->lines[size_t(index.row())];
    if (role == Qt::TextAlignmentRole) return alignment(index.column() == Bytes || index.column() == Blocks);
    if (role == kSortRole) {
        switch (index.column()) {
        case Bytes:
            return qlonglong(h.bytes);
        case Blocks:
            return uint(h.count);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Line)
        return tr(
            "The line that made these blocks; memory made inside a module call counts for the line that "
            "called the outermost module");
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Line:
        return QString::fromStdString(lineText(*capture_, h));
    case Bytes:
        return bytes(h.bytes);
    case Blocks:
        return uint(h.count);
    case Kind:
        return QString::fromUtf8(categoryName(h.category).data(), qsizetype(categoryName(h.category).size()));
    default:
        return {};
    }
}

QVariant LineHolderModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Line", "Alive", "Blocks", "Category"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace vs::ui
