#pragma once
// The Leaks panel: the diagnosis in plain words and the surviving allocations of the growth region
// (or of the selected range): by group (with cost bars and steadiness), as top-down and bottom-up
// call trees, as a flame graph, and the selected group's live bytes over time. Heavy work runs in
// the background.
#include "CaptureLoader.h"
#include "analysis/LeakDiagnosis.h"

#include <QFutureWatcher>
#include <QVector>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTreeView;
class QTreeWidget;
class QSortFilterProxyModel;

namespace vs::ui {

class CallTreeModel;
class FlameGraph;
class Sparkline;

class LeaksPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LeaksPanel(QWidget* parent = nullptr);
    ~LeaksPanel() override;
    // Computes in the background; `first`/`last` < 0: the automatically detected region.
    void analyse(AnalysisPtr analysis, size_t device, int64_t first = -1, int64_t last = -1);
    const LeakReport& report() const { return result_.report; }
    int groupRows() const;
    void selectGroup(int row);
    void setSearch(const QString& text);
    void showView(int tab); // 0 groups, 1 top-down, 2 bottom-up, 3 flame graph
    void waitForResult();   // tests and --screenshot
    FlameGraph* flameGraph() const { return flame_; }
    QTreeView* topDownView() const { return topDown_; }
    Sparkline* sparkline() const { return spark_; }

  signals:
    void reportReady();
    void windowChanged(double fromSeconds, double toSeconds, bool automatic);
    void groupHighlighted(size_t device, const QVector<double>& allocSeconds); // empty: none

  private:
    struct Result {
        LeakReport report;
        std::vector<Allocation> lifetimes;
    };
    void present(Result result);
    void fillGroups();
    void onGroupSelected(int row);
    void applyFilter(const QString& text);

    AnalysisPtr analysis_;
    size_t device_ = 0;
    Result result_;
    QLabel* diagnosis_;
    QLineEdit* search_;
    QCheckBox* atEnd_;
    int64_t first_ = -1, last_ = -1; // the window asked for (-1: detected)
    QTabWidget* views_;
    QTreeWidget* groups_;
    QTreeView *topDown_, *bottomUp_;
    CallTreeModel *topDownModel_, *bottomUpModel_;
    QSortFilterProxyModel *topDownFilter_, *bottomUpFilter_;
    FlameGraph* flame_;
    Sparkline* spark_;
    QFutureWatcher<Result> watcher_;
};

} // namespace vs::ui
