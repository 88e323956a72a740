#pragma once
// A comparison window: capture A (the one open in the main window) against capture B (File → Compare
// With…, loaded here into a second Session), or two ranges of one capture (File → Compare Ranges…).
// Says what differs in the setting first, then the verdict; plots the per-iteration peak and live
// bytes of both lined up by iteration; lists the sites and stacks whose memory differs, as tables, a
// tree and a differential flame graph. Loading and comparing run on B's session's JobRunner, never on
// the GUI thread; closing the window cancels them.
#include "compare/CaptureDiff.h"
#include "session/CaptureLoader.h"
#include "session/Session.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QCustomPlot;
class QLabel;
class QTabWidget;
class QTableView;
class QTreeView;
class QComboBox;

namespace vs::ui {

class DiffFlameGraph;
class DiffTableModel;
class DiffTreeModel;

class CompareView : public QWidget {
    Q_OBJECT
  public:
    using Range = std::optional<std::pair<double, double>>; // seconds from the capture's origin

    explicit CompareView(QWidget* parent = nullptr);
    // File → Compare With…: asks for B and opens a comparison window (nullptr when cancelled).
    static CompareView* askAndCompare(QWidget* parent, AnalysisPtr a, const QString& pathA);
    // File → Compare Two Ranges…: asks for two ranges of the capture (A prefilled from the selection).
    static CompareView* askRanges(QWidget* parent, AnalysisPtr a, const QString& path, Range selected);
    // A against the file at pathB (read in the background).
    void compareWith(AnalysisPtr a, const QString& pathA, const QString& pathB);
    // Two ranges of one capture (epoch N against epoch 1).
    void compareRanges(AnalysisPtr a, const QString& path, std::pair<double, double> rangeA,
                       std::pair<double, double> rangeB);

    const CaptureDiff* diff() const { return diff_.get(); }
    bool busy() const;
    void waitForJobs(); // tests and headless screenshots
    DiffTableModel* sitesModel() const { return sites_; }
    QString headerText() const;
    QString errorText() const { return error_; }

  signals:
    void compared();
    void failed(const QString& message);

  private:
    void start(AnalysisPtr a, Range ra, AnalysisPtr b, Range rb);
    void showDiff(std::shared_ptr<const CaptureDiff> d);
    void showError(const QString& message);
    void plotIterations(const IterationAlignment& al);
    void showTree();
    QTableView* table(DiffTableModel* model);

    Session other_; // capture B; its JobRunner runs the comparison
    CaptureLoader loader_;
    AnalysisPtr a_, b_;
    QString pathA_, pathB_;
    Range rangeA_, rangeB_;
    std::shared_ptr<const CaptureDiff> diff_;
    QString error_;

    QLabel* header_;
    QLabel* verdict_;
    QCustomPlot* curves_;
    QTabWidget* tabs_;
    DiffTableModel* sites_;
    DiffTableModel* stacks_;
    DiffTreeModel* tree_;
    QComboBox* treeMeasure_;
    DiffFlameGraph* flame_;
};

} // namespace vs::ui
