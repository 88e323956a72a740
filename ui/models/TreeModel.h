#pragma once
// The one implementation of a tree's index/parent/rowCount for the tree views (call trees,
// dominators, call-path diffs, survivor groups). A subclass names its nodes by numbers (the
// index's internal id; kRoot, 0, is the invisible root) and says each node's children, parent and
// row; it implements data() and headerData() only.
#include <QAbstractItemModel>

#include <algorithm>

namespace vs::ui {

class TreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const final;
    QModelIndex parent(const QModelIndex& child) const final;
    int rowCount(const QModelIndex& parent = {}) const final;
    int columnCount(const QModelIndex& parent = {}) const final;

  protected:
    using Node = quintptr;
    static constexpr Node kRoot = 0;

    TreeModel(int columns, QObject* parent) : QAbstractItemModel(parent), columns_(columns) {}
    static Node nodeOf(const QModelIndex& index) {
        return index.isValid() ? Node(index.internalId()) : kRoot;
    }

    virtual int childCount(Node node) const = 0;        // 0 also while there is no tree
    virtual Node childAt(Node node, int row) const = 0; // row < childCount(node)
    virtual Node parentOf(Node node) const = 0;         // kRoot for a top-level node
    virtual int rowOf(Node node) const = 0;             // its place among its parent's children

    // rowOf for trees whose nodes hold their parent and their children's indices (CallTree, DiffTree).
    template <class Tree> static int rowAmongSiblings(const Tree& tree, uint32_t node) {
        const auto& siblings = tree.node(tree.node(node).parent).children;
        return int(std::find(siblings.begin(), siblings.end(), node) - siblings.begin());
    }

  private:
    int columns_;
};

} // namespace vs::ui
