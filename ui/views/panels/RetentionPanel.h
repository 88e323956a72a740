#pragma once
// The Retention tab: for each retention graph the recorder collected, the blocks grouped by path
// signature (largest first), the selected group's shortest path from a root as a readable chain
// with a hint for the usual PyTorch mistake, the dominator tree with retained GPU bytes ("Ignore
// this retainer" recomputes without it), and a layered drawing of the group's paths.
#include "session/CaptureLoader.h"

#include "analysis/retention/Retention.h"
#include "session/JobRunner.h"

#include <QVector>
#include <QWidget>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace vs::ui {

class Session;

class DominatorTreeModel;
class RetentionGraphView;
class RetentionGroupModel;

class RetentionPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RetentionPanel(QWidget* parent = nullptr);
    // Shows the session's capture; the analyses run on its runner (results arrive on the GUI thread).
    void follow(Session* session);
    void setAnalysis(AnalysisPtr analysis);
    int graphCount() const;
    void selectGraph(int index);
    void selectGroup(int row); // row in the groups list (as shown)
    void ignoreNode(uint32_t node);
    void clearIgnored();
    const RetentionResult& result() const;
    QString pathText() const;
    QString hintText() const;
    QTreeView* groupsView() const { return groups_; }        // over RetentionGroupModel, filtered
    QTreeView* dominatorView() const { return dominators_; } // over DominatorTreeModel
    // Selects the group holding the block at `address` (a click in the block map), without emitting
    // blocksChosen; false when no group of the shown graph holds it.
    bool selectBlockAddress(uint64_t address);

  signals:
    // The user chose a group: its blocks' addresses, on the graph's device at the graph's moment.
    void blocksChosen(int device, qint64 timeUs, const QVector<quint64>& addresses);

  private:
    void recompute();
    void showResult(const RetentionResult& r);
    void fillGroups();
    void fillDominators();
    void showGroup(int group);
    void dominatorMenu(const QPoint& pos);
    const RetentionGraph* graph() const;

    AnalysisPtr analysis_;
    JobRunner ownJobs_; // until a session lends its runner
    JobRunner* jobs_ = &ownJobs_;
    bool userChoice_ = true; // false while the panel picks a group itself
    int graphIndex_ = -1;
    std::vector<uint32_t> ignored_;
    std::shared_ptr<const RetentionResult> result_; // the shown graph's, shared with the models
    QComboBox* graphs_;
    QCheckBox* suspiciousOnly_;
    QLabel* summary_;
    QLabel* path_;
    QLabel* hint_;
    RetentionGroupModel* groupsModel_;
    QSortFilterProxyModel* groupsFilter_; // suspicious only, sorting
    QTreeView* groups_;
    DominatorTreeModel* dominatorsModel_;
    QTreeView* dominators_;
    RetentionGraphView* drawing_;
};

} // namespace vs::ui
