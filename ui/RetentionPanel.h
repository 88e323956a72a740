#pragma once
// The Retention tab: for each retention graph the recorder collected, the blocks grouped by path
// signature (largest first), the selected group's shortest path from a root as a readable chain
// with a hint for the usual PyTorch mistake, the dominator tree with retained GPU bytes ("Ignore
// this retainer" recomputes without it), and a layered drawing of the group's paths.
#include "CaptureLoader.h"

#include "analysis/Retention.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace vs::ui {

class RetentionGraphView;

class RetentionPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RetentionPanel(QWidget* parent = nullptr);
    void setAnalysis(AnalysisPtr analysis);
    int graphCount() const;
    void selectGraph(int index);
    void selectGroup(int row); // row in the groups list (as shown)
    void ignoreNode(uint32_t node);
    void clearIgnored();
    const RetentionResult& result() const { return result_; }
    QString pathText() const;
    QString hintText() const;
    QTreeWidget* groupsTree() const { return groups_; }
    QTreeWidget* dominatorTree() const { return dominators_; }

  private:
    void recompute();
    void fillGroups();
    void fillDominators();
    void showGroup(int group);
    void dominatorMenu(const QPoint& pos);
    const RetentionGraph* graph() const;

    AnalysisPtr analysis_;
    int graphIndex_ = -1;
    std::vector<uint32_t> ignored_;
    RetentionResult result_;
    QComboBox* graphs_;
    QCheckBox* suspiciousOnly_;
    QLabel* summary_;
    QLabel* path_;
    QLabel* hint_;
    QTreeWidget* groups_;
    QTreeWidget* dominators_;
    RetentionGraphView* drawing_;
};

} // namespace vs::ui
