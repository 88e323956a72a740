#pragma once
// The difference of two captures along call paths (core's DiffTree) as a tree: frame, bytes in A,
// in B, and B − A; children heaviest difference first.
#include "compare/DiffTree.h"

#include "models/TreeModel.h"

namespace vs::ui {

class DiffTreeModel : public TreeModel {
    Q_OBJECT
  public:
    enum Column { Frame, A, B, Delta, ColumnCount };
    explicit DiffTreeModel(QObject* parent = nullptr) : TreeModel(ColumnCount, parent) {}
    void setTree(DiffTree tree);

    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    int childCount(Node n) const override {
        return tree_.size() ? int(tree_.node(uint32_t(n)).children.size()) : 0;
    }
    Node childAt(Node n, int row) const override { return tree_.node(uint32_t(n)).children[size_t(row)]; }
    Node parentOf(Node n) const override { return tree_.node(uint32_t(n)).parent; } // top level: 0, the root
    int rowOf(Node n) const override { return rowAmongSiblings(tree_, uint32_t(n)); }
    DiffTree tree_;
};

} // namespace vs::ui
