#pragma once
// The Peak tab: what makes the peak of allocated memory on the session's device (PeakReport, found by
// the session once per device): one sentence, what is alive then by category, the per-phase table
// (each epoch and evaluation: its peak and change; double-click a phase to go to its peak) and what
// is alive by the user's line. "Go to the Peak" (and Go > Peak) selects the peak's event: the
// timeline, block map and stack follow.
#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace vs::ui {

class Session;
class PhaseTableModel;
class LineHolderModel;

class PeakPanel : public QWidget {
    Q_OBJECT
  public:
    explicit PeakPanel(QWidget* parent = nullptr);
    void follow(Session* session);
    void goToPeak(); // selects the peak's event, when the peak is known
    QString summaryText() const;
    QTreeView* phasesView() const { return phases_; }
    QTreeView* linesView() const { return lines_; }

  private:
    void show();  // the session's peak arrived
    void clear(); // another capture or device: until its peak arrives
    Session* session_ = nullptr;
    QLabel* summary_;
    QLabel* categories_;
    QPushButton* go_;
    QTreeView* phases_;
    QTreeView* lines_;
    PhaseTableModel* phaseModel_;
    LineHolderModel* lineModel_;
};

} // namespace vs::ui
