#pragma once
// A thin item model over a CallTree (top-down or bottom-up): function, bytes, blocks, location.
#include "analysis/CallTree.h"

#include <QAbstractItemModel>

#include <memory>

namespace vs::ui {

constexpr int kCostShareRole = Qt::UserRole + 10; // 0..1 of the total, for cost bars

class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    enum Column { Function, Bytes, Blocks, Location, ColumnCount };
    explicit CallTreeModel(QObject* parent = nullptr) : QAbstractItemModel(parent) {}
    void setTree(std::shared_ptr<const Capture> keepAlive, const Capture* capture, CallTree tree);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.column() > 0 ? 0 : ColumnCount;
    }
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    uint32_t nodeOf(const QModelIndex& i) const { return i.isValid() ? uint32_t(i.internalId()) : 0; }
    std::shared_ptr<const Capture> keep_;
    const Capture* capture_ = nullptr;
    CallTree tree_;
};

} // namespace vs::ui
