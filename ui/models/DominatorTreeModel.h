#pragma once
// The Retention tab's dominator tree over one immutable analysis result: who keeps what alive, with
// the GPU bytes each holder retains. Only holders that retain some GPU memory, largest first; a
// fan-out beyond 200 children is folded into a "+N more" row. The tree is laid out once per result
// (flat nodes with parent and child indices); the model only reads it.
#include "analysis/retention/Retention.h"
#include "session/CaptureLoader.h"

#include "models/TreeModel.h"

#include <memory>
#include <vector>

namespace vs::ui {

class DominatorTreeModel : public TreeModel {
    Q_OBJECT
  public:
    enum Column { Holder, Retained, ColumnCount };
    static constexpr int NodeRole = Qt::UserRole + 1; // the graph node (none on a "+N more" row)
    static constexpr int kMaxChildren = 200;

    explicit DominatorTreeModel(QObject* parent = nullptr) : TreeModel(ColumnCount, parent) {}
    // `graph` is one of `analysis`'s retention graphs, `result` its analysis.
    void setResult(AnalysisPtr analysis, const RetentionGraph* graph,
                   std::shared_ptr<const RetentionResult> result);
    void clear();

    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    struct Entry { // one laid-out node
        uint32_t graphNode = 0;
        int parent = -1, row = 0;
        uint32_t more = 0; // > 0: the "+N more" row
        std::vector<int> children;
    };
    void layOut();
    int childCount(Node n) const override { return nodes_.empty() ? 0 : int(nodes_[n].children.size()); }
    Node childAt(Node n, int row) const override { return Node(nodes_[n].children[size_t(row)]); }
    Node parentOf(Node n) const override { return Node(nodes_[n].parent); } // top level: 0, the root
    int rowOf(Node n) const override { return nodes_[n].row; }

    AnalysisPtr analysis_;
    const RetentionGraph* graph_ = nullptr;
    std::shared_ptr<const RetentionResult> result_;
    std::vector<Entry> nodes_; // nodes_[0]: the invisible root (the result's super root)
};

} // namespace vs::ui
