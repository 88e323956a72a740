#pragma once
// A thin item model over a CallTree (top-down or bottom-up): function, bytes, blocks, location.
#include "analysis/stacks/CallTree.h"

#include "models/TreeModel.h"

#include <memory>

namespace vs::ui {

constexpr int kCostShareRole = Qt::UserRole + 10; // 0..1 of the total, for cost bars

class CallTreeModel : public TreeModel {
    Q_OBJECT
  public:
    enum Column { Function, Bytes, Blocks, Location, ColumnCount };
    explicit CallTreeModel(QObject* parent = nullptr) : TreeModel(ColumnCount, parent) {}
    void setTree(std::shared_ptr<const Capture> keepAlive, const Capture* capture, CallTree tree);

    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    int childCount(Node n) const override {
        return capture_ ? int(tree_.node(uint32_t(n)).children.size()) : 0;
    }
    Node childAt(Node n, int row) const override { return tree_.node(uint32_t(n)).children[size_t(row)]; }
    Node parentOf(Node n) const override { return tree_.node(uint32_t(n)).parent; } // top level: 0, the root
    int rowOf(Node n) const override { return rowAmongSiblings(tree_, uint32_t(n)); }
    std::shared_ptr<const Capture> keep_;
    const Capture* capture_ = nullptr;
    CallTree tree_;
};

} // namespace vs::ui
