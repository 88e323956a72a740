#pragma once
// The Retention tab's dominator tree over one immutable analysis result: who keeps what alive, with
// the GPU bytes each holder retains. Only holders that retain some GPU memory, largest first; a
// fan-out beyond 200 children is folded into a "+N more" row. The tree is laid out once per result
// (flat nodes with parent and child indices); the model only reads it.
#include "analysis/Retention.h"
#include "session/CaptureLoader.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace vs::ui {

class DominatorTreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column { Holder, Retained, ColumnCount };
    static constexpr int NodeRole = Qt::UserRole + 1; // the graph node (none on a "+N more" row)
    static constexpr int kMaxChildren = 200;

    using QAbstractItemModel::QAbstractItemModel;
    // `graph` is one of `analysis`'s retention graphs, `result` its analysis.
    void setResult(AnalysisPtr analysis, const RetentionGraph* graph, std::shared_ptr<const RetentionResult> result);
    void clear();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    struct Node {
        uint32_t graphNode = 0;
        int parent = -1, row = 0;
        uint32_t more = 0; // > 0: the "+N more" row
        std::vector<int> children;
    };
    void layOut();
    int nodeOf(const QModelIndex& index) const { return index.isValid() ? int(index.internalId()) : 0; }

    AnalysisPtr analysis_;
    const RetentionGraph* graph_ = nullptr;
    std::shared_ptr<const RetentionResult> result_;
    std::vector<Node> nodes_; // nodes_[0]: the invisible root (the result's super root)
};

} // namespace vs::ui
