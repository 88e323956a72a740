#pragma once
// The Leaks panel's Groups view as a thin model over the report's survivor groups: one row per
// group (surviving bytes with a cost share, blocks, steadiness, allocation site), its stack's frames
// as child rows (internal frames hidden, library frames folded unless asked for). Nothing is copied
// out of the capture; a proxy filters it.
#include "analysis/categories/Categories.h"
#include "analysis/stacks/Survivors.h"
#include "session/CaptureLoader.h"

#include "models/TreeModel.h"

#include <vector>

namespace vs::ui {

class SurvivorGroupModel : public TreeModel {
    Q_OBJECT
  public:
    enum Column { Bytes, Blocks, Kind, Steady, Site, ColumnCount };
    static constexpr int kMaxGroups = 500; // the rest are tails nobody scrolls to

    explicit SurvivorGroupModel(QObject* parent = nullptr);
    // `categories`: what each group's bytes mostly are (docs/categories.md); empty when unknown.
    void setGroups(AnalysisPtr analysis, std::vector<SurvivorGroup> groups, bool showLibraries,
                   std::vector<Category> categories = {});
    // The top-level row of any index (a group, or a frame of it); -1 for none.
    static int groupRow(const QModelIndex& index);

    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

  private:
    // Nodes: group g is (g + 1) << 32, its k-th frame row that plus k + 1.
    static Node groupNode(size_t g) { return Node(g + 1) << 32; }
    static size_t groupOf(Node n) { return size_t(n >> 32) - 1; }
    static bool isFrame(Node n) { return (n & 0xffffffffu) != 0; }
    int childCount(Node n) const override;
    Node childAt(Node n, int row) const override {
        return n == kRoot ? groupNode(size_t(row)) : n + Node(row) + 1;
    }
    Node parentOf(Node n) const override { return isFrame(n) ? groupNode(groupOf(n)) : kRoot; }
    int rowOf(Node n) const override { return isFrame(n) ? int(n & 0xffffffffu) - 1 : int(groupOf(n)); }
    QVariant groupData(size_t g, int column, int role) const;
    QVariant frameData(size_t g, size_t k, int column, int role) const;

    AnalysisPtr analysis_;
    std::vector<SurvivorGroup> groups_;
    std::vector<Category> categories_;
    std::vector<std::vector<FrameId>> frames_; // shown frames per group
    double biggest_ = 1;
};

} // namespace vs::ui
