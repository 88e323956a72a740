#pragma once
// File → Open Ranks…: one capture per rank of a distributed job side by side. The captures are read
// on every core in the background (only each rank's summary is kept, so memory stays bounded), or
// their summaries (.vsrank, `vramscope-cli summarize`) in their place, a few KB each; then a
// rank × time heatmap, a per-rank table and the outlier ranks said in sentences; a double click on a
// rank (heatmap or table) asks for its full view (openRank). Closing the window cancels the loading.
#include "compare/RankSet.h"
#include "session/JobRunner.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QLabel;
class QTableView;

namespace vs::ui {

class RankHeatmap;
class RankTableModel;

class RanksWindow : public QWidget {
    Q_OBJECT
  public:
    explicit RanksWindow(QWidget* parent = nullptr);
    // File → Open Ranks… (per-rank files) or Open Ranks Folder… (a folder of them, as distributed jobs
    // dump them): asks, then opens the window (nullptr when cancelled).
    enum class Pick { Files, Folder };
    static RanksWindow* askAndOpen(QWidget* parent, Pick pick = Pick::Files);
    // A new window (deleted when closed) reading `paths` (open()), shown.
    static RanksWindow* openIn(QWidget* parent, const QStringList& paths);
    ~RanksWindow() override;
    // Files, or a folder's capture and summary files (rankFiles); loading starts at once.
    void open(const QStringList& paths);
    std::shared_ptr<const RankSet> ranks() const { return set_; }
    RankHeatmap* heatmap() const { return heatmap_; }
    QString outlierText() const;
    QString errorText() const { return error_; }
    void waitForJobs() { jobs_.waitForAll(); }

  signals:
    void loaded();
    void openRank(const QString& path);

  private:
    void showRanks(std::shared_ptr<const RankSet> set);
    void showError(const QString& message);

    JobRunner jobs_;
    std::shared_ptr<const RankSet> set_;
    QString error_;
    QLabel* status_;
    QLabel* outliers_;
    RankHeatmap* heatmap_;
    RankTableModel* model_;
    QTableView* table_;
};

} // namespace vs::ui
