#pragma once
// Ranks × time: one row per rank, colour = allocated (or reserved) memory from the lowest to the
// highest value of any rank (a colour bar at the bottom right says which), drawn from each rank's fixed-size
// profile (RankSummary::kBins slices), so a repaint costs the same for 8 ranks or 1024 (several ranks share a
// pixel row when they do not fit: the row shows their maximum). The x axis is time since the earliest rank's
// first event, or, aligned by step, the iterations (step k of every rank in one column, its peak). Zoom with
// the wheel, pan by dragging, Home fits; each rank's step starts are ticked; outlier ranks are marked red at
// the left; a double click activates a rank (its full view).
#include "compare/RankSet.h"

#include <QImage>
#include <QWidget>

#include <memory>
#include <vector>

namespace vs::ui {

class ColourScale;

class RankHeatmap : public QWidget {
    Q_OBJECT
  public:
    enum class Metric { Allocated, Reserved };

    explicit RankHeatmap(QWidget* parent = nullptr);
    void setRanks(std::shared_ptr<const RankSet> set);
    void setMetric(Metric m);
    void setAlignBySteps(bool steps);
    bool alignBySteps() const { return bySteps_; }
    const std::shared_ptr<const RankSet>& ranks() const { return set_; }
    void fitAll();
    // Past this many rank-pixels a repaint takes a cheaper way than drawing every rank's row (see
    // Way below); tests set 0 to check those ways on a few ranks.
    static constexpr int64_t kDefaultExactWork = 2'000'000; // about 1,250 ranks on 1,600 pixels
    void setExactWork(int64_t rankPixels) { exactWork_ = rankPixels, update(); }
    // The x range shown: microseconds since the earliest first event, or iteration numbers (from 0).
    void setView(double from, double to);
    std::pair<double, double> view() const { return {from_, to_}; }
    int rankRowAt(QPoint p) const; // index into the set's ranks, or -1
    // Draws the heat cells into an image of the plot area's size (the bench times this).
    QImage renderCells(QSize size) const;
    // One cell on its own (tooltips; the reference renderCells is tested against): the highest value
    // of a rank over [x0, x1) in view units, -1 when it has nothing there; and its colour.
    int64_t cellValue(const RankSummary& r, double x0, double x1) const;
    QRgb colourOf(int64_t value) const;

  signals:
    void rankActivated(int index);

  protected:
    void paintEvent(QPaintEvent*) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    bool event(QEvent* e) override;

  private:
    QRect plotArea() const;
    double extent() const; // the whole x range
    // A rank's values as equal slices along the x axis (time slices, or slots of iterations).
    struct Slices {
        const std::vector<int64_t>* values = nullptr; // none: nothing to draw
        double first = 0, last = 0, width = 1;
        // (an int: slices are at most a few thousand, and int converts to double without a branch)
        double start(int k) const { return first + width * double(k); }
        // The slice holding x: the last one starting at or before it (the first before the first).
        // Decided only by comparing x with start(k), as the row walk does, so that a cell computed on
        // its own and a pixel of a drawn row agree to the bit.
        int sliceAt(double x) const;
        int64_t maxOver(double x0, double x1) const; // the highest slice overlapping [x0, x1), or -1
    };
    Slices slicesOf(const RankSummary& r) const;
    // What a row shows: time slices or per-step peaks, of allocated or reserved memory.
    const std::vector<int64_t>& valuesOf(const RankSummary& r) const;
    QString metricName() const;
    // cellValue for every column of a row whose pixel edges are `edges` (w + 1 of them), max-ed
    // into `row`: O(pixels + slices), no search per pixel, so 1024 ranks repaint within a frame.
    void rowValues(const Slices& s, const std::vector<double>& edges, std::vector<int64_t>& row) const;

    // Thousands of ranks (RankHeatmapMerged.cpp). Drawing every rank's row costs ranks × pixels and
    // reads every rank's slices (256 MB at 16,384 ranks) at each repaint; past kExactWork
    // rank-pixels the cells are drawn one of two cheaper ways, each within a pixel of the exact
    // cells (never losing a value: tst_compare_view):
    //  - Merged: when ranks share pixel rows and the view is wide, from one profile per pixel row
    //    (the highest of its ranks in each of kMergedCells equal cells of the whole x range, made
    //    once per set, metric, alignment and height);
    //  - Scatter: zoomed in, each rank's slices in view painted over the pixels they cover
    //    (O(slices in view) per rank rather than O(pixels)).
    enum class Way { Exact, Merged, Scatter };
    static constexpr size_t kMergedCells = 8192;
    struct MergedRows {
        const RankSet* set = nullptr;
        Metric metric = Metric::Allocated;
        bool steps = false;
        int rows = 0;
        double cellWidth = 1;
        std::vector<std::vector<int64_t>> cells; // per pixel row, -1 where none of its ranks has data
    };
    Way wayFor(int width, int height) const;
    const MergedRows& mergedRows(int rows) const;
    // One rank's colour indices (HeatColours.h) over the pixels of `edges`, into `row` (all -1 before).
    void scatterRow(const Slices& s, const std::vector<double>& edges, const ColourScale& colour,
                    std::vector<int16_t>& row) const;
    void drawAxis(QPainter& p, const QRect& area) const;
    void drawSteps(QPainter& p, const QRect& area) const;
    void drawScale(QPainter& p) const;
    void updateScale();

    std::shared_ptr<const RankSet> set_;
    std::vector<char> marked_; // per rank: an outlier or unreadable (the red mark at the left)
    Metric metric_ = Metric::Allocated;
    bool bySteps_ = false;
    double from_ = 0, to_ = 1;
    int64_t scaleMin_ = 0, scaleMax_ = 1; // the colour scale: the lowest and highest value shown anywhere
    // The last cells drawn and what they showed (the set, metric, alignment, view and size).
    struct CellsKey {
        const RankSet* set = nullptr;
        Metric metric = Metric::Allocated;
        bool steps = false;
        double from = 0, to = 0;
        QSize size;
        int64_t exactWork = 0;
        bool operator==(const CellsKey&) const = default;
    };
    CellsKey cellsKey_;
    QImage cells_;
    int64_t exactWork_ = kDefaultExactWork;
    mutable MergedRows merged_; // made on first need by the (const) drawing
    std::optional<QPoint> dragFrom_;
    double dragViewFrom_ = 0;
};

} // namespace vs::ui
