#include "models/SurvivorGroupModel.h"

#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"
#include "common/QtText.h"
#include "models/CallTreeModel.h"

#include <QFont>

namespace vs::ui {

SurvivorGroupModel::SurvivorGroupModel(QObject* parent) : TreeModel(ColumnCount, parent) {}

void SurvivorGroupModel::setGroups(AnalysisPtr analysis, std::vector<SurvivorGroup> groups,
                                   bool showLibraries, std::vector<Category> categories) {
    beginResetModel();
    analysis_ = std::move(analysis);
    if (groups.size() > size_t(kMaxGroups)) groups.resize(size_t(kMaxGroups));
    groups_ = std::move(groups);
    categories_ = std::move(categories);
    frames_.clear();
    biggest_ = 1;
    if (analysis_) {
        const Capture& c = analysis_->capture();
        for (const auto& g : groups_) {
            biggest_ = std::max(biggest_, double(g.bytes));
            frames_.push_back(shownFrames(c, g.stack, true, !showLibraries)); // folded like the trees
        }
    }
    endResetModel();
}

int SurvivorGroupModel::groupRow(const QModelIndex& index) {
    return index.isValid() ? int(groupOf(nodeOf(index))) : -1;
}

int SurvivorGroupModel::childCount(Node n) const {
    if (n == kRoot) return int(groups_.size());
    return isFrame(n) ? 0 : int(frames_[groupOf(n)].size());
}

QVariant SurvivorGroupModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !analysis_) return {};
    const Node n = nodeOf(index);
    if (!isFrame(n)) return groupData(groupOf(n), index.column(), role);
    return frameData(groupOf(n), size_t(index.row()), index.column(), role);
}

QVariant SurvivorGroupModel::groupData(size_t i, int column, int role) const {
    const SurvivorGroup& g = groups_[i];
    const Capture& c = analysis_->capture();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Bytes:
            return formatBytes(double(g.bytes));
        case Blocks:
            return QString::number(g.count);
        case Kind:
            if (i < categories_.size() && categories_[i] != Category::Unknown) {
                const auto name = categoryName(categories_[i]);
                return QString::fromUtf8(name.data(), int(name.size()));
            }
            return QString();
        case Steady:
            return isSteady(g) ? tr("%1/10").arg(g.coverage) : QString();
        default: {
            const uint32_t site = firstUserFrame(c, g.stack);
            if (site == kNoFrame) return tr("(no stack recorded)");
            const Frame& f = c.frames[c.stacks.frames(g.stack)[site]];
            return QStringLiteral("%1  (%2:%3)")
                .arg(qtext(c, f.name), qtext(c, f.filename).section('/', -1))
                .arg(f.line);
        }
        }
    }
    if (role == kCostShareRole && column == Bytes) return double(g.bytes) / biggest_;
    if (role == Qt::TextAlignmentRole && (column == Bytes || column == Blocks))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && column == Site && isSteady(g)) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    return {};
}

QVariant SurvivorGroupModel::frameData(size_t g, size_t k, int column, int role) const {
    if (column != Site || (role != Qt::DisplayRole && role != Qt::ToolTipRole)) return {};
    const Capture& c = analysis_->capture();
    const Frame& f = c.frames[frames_[g][k]];
    return QStringLiteral("%1  %2:%3").arg(qtext(c, f.name), qtext(c, f.filename)).arg(f.line);
}

QVariant SurvivorGroupModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Surviving bytes", "Blocks", "Category", "Steady",
                                  "Allocation site / stack"};
    return tr(names[section]);
}

} // namespace vs::ui
