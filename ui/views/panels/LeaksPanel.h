#pragma once
// The Leaks panel: the diagnosis in plain words and the surviving allocations of the growth region
// (or of the selected range): by group (with cost bars and steadiness), as top-down and bottom-up
// call trees, as a flame graph, and the selected group's live bytes over time. Heavy work runs in
// the background.
#include "analysis/growth/LeakDiagnosis.h"
#include "session/CaptureLoader.h"
#include "session/JobRunner.h"

#include <QVector>
#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTreeView;
class QSortFilterProxyModel;

namespace vs::ui {

class CallTreeModel;
class FlameGraph;
class SurvivorGroupModel;
class RegionListView;
class Sparkline;

class Session;

class LeaksPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LeaksPanel(QWidget* parent = nullptr);
    ~LeaksPanel() override;
    // Explains the session's device (its detected region) whenever the device or capture changes,
    // with times on the session's origin; then the session's selected range or growth region. Its
    // group's allocations become the session's marked allocations.
    void follow(Session* session);
    // Times shown and emitted are seconds from this moment (the timeline's origin).
    void setOrigin(int64_t originUs) { originUs_ = originUs; }
    const LeakReport& report() const { return result_.report; }
    const std::vector<Allocation>& lifetimes() const; // of the device analysed last (empty until ready)
    size_t device() const { return device_; }
    RegionListView* regionList() const { return regions_; }
    int groupRows() const;
    void selectGroup(int row);
    void setSearch(const QString& text);
    void showView(int tab); // 0 groups, 1 top-down, 2 bottom-up, 3 flame graph, 4 regions
    void waitForResult();   // tests and --screenshot
    FlameGraph* flameGraph() const { return flame_; }
    QTreeView* topDownView() const { return topDown_; }
    Sparkline* sparkline() const { return spark_; }

  signals:
    void reportReady();
    // Worth showing now: a finding on open, a range or a region the user selected.
    void attentionWanted();
    void windowChanged(double fromSeconds, double toSeconds, bool automatic);
    // The selected group's allocations: their times and alloc event indices (ascending); empty: none.
    void groupHighlighted(size_t device, const QVector<double>& allocSeconds,
                          const QVector<quint32>& allocEvents);
    // "Show allocations in the event list" on a group.
    void showAllocationsRequested(size_t device, const QVector<quint32>& allocEvents);
    // The diagnosis's "Retention tab" link: the holders of what it found.
    void retentionRequested();
    // A finding of the findings line was clicked: its region (an index into the device's regions).
    void findingChosen(int region);

  private:
    // Computes in the background; `first`/`last` < 0: the automatically detected region.
    void analyse(AnalysisPtr analysis, size_t device, int64_t first = -1, int64_t last = -1);
    // Explains one growth region (a click on its ramp, a row of the Regions list), in the background.
    // `automatic`: chosen by the program (a cold open), not by the user; a live capture's growth then
    // asks for the detected region again.
    void analyseRegion(AnalysisPtr analysis, size_t device, const GrowthRegion& region,
                       bool automatic = false);
    struct Result {
        LeakReport report;
        std::shared_ptr<const LeakInputs> inputs; // lifetimes and regions, once per device
        AnalysisPtr analysis;                     // whose device `device` the inputs are of
        size_t device = 0;
        // Found with the report off the GUI thread: the group shown first must not cost
        // O(allocations) when the result arrives (a leak's group at 100M events holds ~1M).
        std::vector<Category> kinds;                            // what each group mostly is
        std::vector<std::pair<double, double>> firstGroupSpark; // its live bytes over time (s, bytes)
        QVector<quint32> firstGroupEvents; // its alloc events and their times, for the marks
        QVector<double> firstGroupTimes;
    };
    void present(Result result);
    void fillGroups();
    void buildTrees();
    void onGroupSelected(int row);
    void applyFilter(const QString& text);
    void run(LeakQuery q);
    void groupMenu(const QPoint& pos);
    QVector<quint32> groupEvents(int row) const;
    static QVector<quint32> eventsOf(const std::vector<Allocation>& all, const SurvivorGroup& g);
    static QVector<double> timesOf(const DeviceTrace& t, int64_t originUs, const QVector<quint32>& events);
    // A stack's live bytes after each of its allocations and frees, in event order: (seconds, bytes).
    static std::vector<std::pair<double, double>>
    liveBytes(const DeviceCategories& device, const DeviceTrace& t, int64_t originUs, StackId stack);
    double secondsAt(uint32_t event) const;
    void showGrowth(); // the session's growth analysis arrived: the findings line, the Regions list
    std::shared_ptr<const LeakInputs> sessionGrowth() const;

    Session* session_ = nullptr;
    std::optional<LeakQuery> pending_; // asked for before the session's growth analysis arrived
    QLabel* findings_;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    Result result_;
    QLabel* diagnosis_;
    QLineEdit* search_;
    QCheckBox* atEnd_;
    QCheckBox* libraries_;
    int64_t first_ = -1, last_ = -1;     // the window asked for (-1: detected)
    std::optional<GrowthRegion> region_; // the region asked for
    bool userChoice_ = false;            // a range or region the user picked: kept while a capture grows
    int64_t originUs_ = 0;
    QTabWidget* views_;
    QTreeView* groupsView_;
    SurvivorGroupModel* groupsModel_;
    QSortFilterProxyModel* groupsFilter_;
    QTreeView *topDown_, *bottomUp_;
    CallTreeModel *topDownModel_, *bottomUpModel_;
    QSortFilterProxyModel *topDownFilter_, *bottomUpFilter_;
    FlameGraph* flame_;
    Sparkline* spark_;
    RegionListView* regions_;
    JobRunner ownJobs_; // until a session lends its runner
    JobRunner* jobs_ = &ownJobs_;
};

} // namespace vs::ui
