#include "models/DominatorTreeModel.h"

#include "util/Format.h"

#include <algorithm>

namespace vs::ui {

void DominatorTreeModel::setResult(AnalysisPtr analysis, const RetentionGraph* graph,
                                   std::shared_ptr<const RetentionResult> result) {
    beginResetModel();
    analysis_ = std::move(analysis), graph_ = graph, result_ = std::move(result);
    layOut();
    endResetModel();
}

void DominatorTreeModel::clear() {
    setResult(nullptr, nullptr, nullptr);
}

// Depth first from the super root, each node's children by retained bytes, largest first.
void DominatorTreeModel::layOut() {
    nodes_.clear();
    if (!graph_ || !result_) return;
    const RetentionResult& r = *result_;
    const uint32_t total = uint32_t(graph_->nodes.size()) + 2;
    std::vector<std::vector<uint32_t>> children(total);
    for (uint32_t v = 0; v < total; ++v)
        if (v != r.superRoot && r.idom.size() > v && r.idom[v] != RetentionResult::kNone)
            children[r.idom[v]].push_back(v);
    nodes_.push_back({r.superRoot, -1, 0, 0, {}});
    std::vector<int> todo{0};
    while (!todo.empty()) {
        const int at = todo.back();
        todo.pop_back();
        auto& kids = children[nodes_[size_t(at)].graphNode];
        std::sort(kids.begin(), kids.end(),
                  [&](uint32_t a, uint32_t b) { return r.retained[a] > r.retained[b]; });
        for (uint32_t k : kids) {
            if (r.retained[k] == 0) continue;
            const int row = int(nodes_[size_t(at)].children.size());
            const bool fold = row == kMaxChildren;
            nodes_.push_back({k, at, row, fold ? uint32_t(kids.size() - kMaxChildren) : 0, {}});
            nodes_[size_t(at)].children.push_back(int(nodes_.size() - 1));
            if (fold) break;
            todo.push_back(int(nodes_.size() - 1));
        }
    }
}

QVariant DominatorTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Entry& n = nodes_[nodeOf(index)];
    if (role == NodeRole) return n.more ? QVariant() : QVariant(n.graphNode);
    if (role == Qt::TextAlignmentRole && index.column() == Retained)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    if (n.more) return index.column() == Holder ? tr("+%L1 more").arg(n.more) : QVariant();
    if (index.column() == Retained)
        return QString::fromStdString(humanBytes(int64_t(result_->retained[n.graphNode])));
    return QString::fromStdString(retentionNodeText(analysis_->capture(), *graph_, n.graphNode));
}

QVariant DominatorTreeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == Holder ? tr("Holder (dominator tree)") : tr("Retained GPU bytes");
}

} // namespace vs::ui
