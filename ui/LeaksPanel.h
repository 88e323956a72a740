#pragma once
// The Leaks panel: the diagnosis in plain words and the surviving allocations of the growth region
// (or of the selected range) grouped by call stack, largest or steadiest first, with cost bars and
// a search filter.
#include "CaptureLoader.h"
#include "analysis/LeakDiagnosis.h"

#include <QFutureWatcher>
#include <QWidget>

class QLabel;
class QLineEdit;
class QTreeWidget;

namespace vs::ui {

class LeaksPanel : public QWidget {
    Q_OBJECT
public:
    explicit LeaksPanel(QWidget* parent = nullptr);
    ~LeaksPanel() override;
    // Computes in the background; `first`/`last` < 0: the automatically detected region.
    void analyse(AnalysisPtr analysis, size_t device, int64_t first = -1, int64_t last = -1);
    void showReport(const LeakReport& report); // fills the panel (also used headless)
    const LeakReport& report() const { return report_; }
    int groupRows() const;
    void waitForResult(); // tests and --screenshot

signals:
    void reportReady(); // the panel shows a new report
    void windowChanged(double fromSeconds, double toSeconds, bool automatic);

private:
    void applyFilter(const QString& text);

    AnalysisPtr analysis_;
    size_t device_ = 0;
    LeakReport report_;
    QLabel* diagnosis_;
    QLineEdit* search_;
    QTreeWidget* groups_;
    QFutureWatcher<LeakReport> watcher_;
};

} // namespace vs::ui
