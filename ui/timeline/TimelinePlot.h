#pragma once
// The allocated / active / reserved timeline: one axis rect (lane) per device with linked time axes,
// level-of-detail data per repaint, the cached part shaded, OOM and annotation markers, a cursor
// with a tooltip, wheel zoom, drag pan, Ctrl-drag rubber-band zoom, Shift-drag range selection,
// double-click to fit and a zoom history. Long idle stretches are folded on the time axis (a narrow
// break labelled with its length; View > Fold Idle Gaps unfolds them): every method takes and gives
// seconds, only what is drawn goes through the fold.
#include "analysis/replay/TimeFold.h"
#include "analysis/replay/TimelineLod.h"
#include "session/CaptureLoader.h"
#include "timeline/ColumnFill.h"
#include "timeline/PauseBands.h"
#include "timeline/RegionSpans.h"

#include <qcustomplot.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace vs::ui {

class Session;

class TimelinePlot : public QCustomPlot {
    Q_OBJECT
  public:
    explicit TimelinePlot(QWidget* parent = nullptr);
    // Draws the session's capture and its selection (TimelineFollow.cpp): the selected event, range,
    // region, marked allocations and picked block; another device clears the marks of the old one.
    // A click selects the device and the event there, a Shift+drag the range, in the session.
    void follow(Session* session);
    // The capture grew (a live session, Session::extended): appends to each band's level of detail
    // (TimelineGrow.cpp) instead of rebuilding the lanes.
    void grow(AnalysisPtr grown);

    // `keepDevice`: a device that gets a lane even when it is not among the busiest.
    void setAnalysis(AnalysisPtr analysis, size_t keepDevice = SIZE_MAX);
    AnalysisPtr analysis() const { return analysis_; }
    // At most this many lanes: past it each would be a few pixels high and every repaint would draw
    // them all (a file may list 1024 devices). Beyond it the busiest devices get lanes, and a device
    // picked elsewhere (the Device box) takes the place of the least busy one. Every method below
    // takes a device index; one without a lane ignores marks and has no regions.
    static constexpr size_t kMaxLanes = 4;
    std::vector<size_t> shownDevices() const; // ascending
    void showDevice(size_t device);           // gives it a lane if it has none (rebuilds the lanes)
    int64_t originUs() const { return originUs_; }

    // Idle gaps (no event on any device for over a tenth of the run and a second, core TimeFold.h)
    // drawn as narrow breaks; on by default. Turning it over keeps the range shown and the marks.
    void setFoldIdleGaps(bool on);
    bool foldsIdleGaps() const { return foldGaps_; }
    const TimeFold& fold() const { return fold_; }

    QCPRange visibleRange() const;
    void setVisibleRange(const QCPRange& r, bool remember = true);
    void fitAll();
    bool zoomBack();
    bool zoomForward();
    void setCursorTime(double seconds);
    std::optional<QCPRange> selection() const { return selection_; }
    // Whether a time lies inside the Shift+dragged range: a click there keeps the range (and the
    // Leaks tab on it) and selects no region or ramp.
    bool inSelection(double t) const {
        return selection_ && t >= selection_->lower && t <= selection_->upper;
    }
    void setSelection(std::optional<QCPRange> r);
    // The selected growth region (or the detected window), shaded on every lane.
    void setGrowthRegion(std::optional<QCPRange> r);
    std::optional<QCPRange> growthRegion() const { return growth_; }
    // The growth regions of a lane: hovering one bands it and names it, clicking it emits regionClicked.
    void setRegions(size_t device, const QVector<RegionSpan>& spans);
    std::optional<RegionSpan> regionAt(size_t device, double seconds) const;
    int hoveredRegion(size_t device) const;
    // Ticks along the bottom of a device's lane at these times (a group's allocations); empty clears.
    void setMarkedTimes(size_t device, const QVector<double>& seconds);
    // Fragmentation on a lane: the largest free block over time (dotted), and red ticks along the
    // top where a request of the chosen size would have needed a new segment. Empty hides them.
    void setFragmentation(size_t device, const QVector<QCPGraphData>& largestFree,
                          const QVector<double>& newSegmentAt, const QVector<QCPGraphData>& fragments);
    // Overlays over allocated and reserved, each behind a View toggle and off at first: the active
    // series, the fragmentation series and the annotations. The legend lists only what is drawn.
    enum class Overlay { Active, Fragmentation, Annotations };
    void setOverlayVisible(Overlay o, bool on);
    bool overlayVisible(Overlay o) const { return overlays_[int(o)]; }
    void setFragmentationVisible(bool on) { setOverlayVisible(Overlay::Fragmentation, on); }
    QStringList legendNames() const; // the legend's entries in order
    // A block's lifetime (alloc to free, or to the end) shaded on a lane; nullopt hides it.
    void setLifetime(size_t device, std::optional<QCPRange> span);
    // A marker at one event (from the event list); `reveal` scrolls it into view.
    void setHighlightedEvent(int device, size_t event, bool reveal = true);
    // Values under a time for one device index: allocated, active, reserved.
    Totals valuesAt(size_t device, double seconds) const;
    size_t pointsDrawn() const { return pointsDrawn_; } // after the last refresh, all graphs
    enum class Series { Allocated, Active, Reserved };
    // The graph holding a series' per-column maxima (upper) or minima (lower) in a device lane.
    QCPGraph* seriesGraph(size_t device, Series s, bool upper) const; // nullptr without a lane
    QString tooltipAt(size_t device, double seconds) const;
    // While one lives, the marks that belong to the mouse (cursor, hovered region, range being
    // selected) are hidden: exported images show the finding, not where the pointer was.
    class ExportScope {
      public:
        explicit ExportScope(TimelinePlot* plot);
        ~ExportScope();
        ExportScope(const ExportScope&) = delete;
        ExportScope& operator=(const ExportScope&) = delete;

      private:
        TimelinePlot* plot_;
        std::vector<std::pair<QCPAbstractItem*, bool>> hidden_;
    };

  signals:
    void cursorMoved(double seconds);
    void laneClicked(size_t device);           // a click in a device's lane, first of the click's signals
    void regionClicked(size_t device, int id); // a click on a region set with setRegions, after timeClicked
    void lanesChanged();              // another device got a lane: marks set on the lanes before are gone
    void timeClicked(double seconds); // every click but one on a mark
    // A click on one of setMarkedTimes' ticks (within a few pixels): its time, not the events beside it
    void markClicked(size_t device, double seconds);
    void selectionChanged(double from, double to); // from == to: cleared
    void visibleRangeChanged(double from, double to);

  protected:
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void changeEvent(QEvent* e) override;

  private:
    struct Band { // one series drawn as a min/max band per pixel column
        QCPGraph *hi = nullptr, *lo = nullptr;
        ColumnFill* fill = nullptr; // between lo and hi, per pixel column
        std::unique_ptr<TimelineLod> lod;
    };
    struct Lane {
        size_t device = 0;
        QCPAxisRect* rect = nullptr;
        Band bands[3];                       // indexed by Series
        ColumnFill* allocatedBase = nullptr; // light fill from 0 to allocated
        ColumnFill* cachedFill = nullptr;    // light fill between allocated and reserved
        QCPItemStraightLine* cursor = nullptr;
        QCPItemRect* selection = nullptr;
        QCPItemRect* growth = nullptr;
        QCPGraph* marks = nullptr;
        QCPGraph *largestFree = nullptr, *newSegment = nullptr, *fragments = nullptr;
        std::vector<QCPAbstractItem*> annotationItems; // labelled lines when few
        QCPGraph* annotationTicks = nullptr;           // ticks along the top when many
        QCPGraph* annotationKey = nullptr;             // empty: the legend's entry for either
        QCPGraph* oomKey = nullptr;                    // empty: the legend's entry for OOM markers
        std::vector<QCPItemText*> oomLabels;           // "OOM (2.16 GiB asked)", left of the line at the edge
        QCPGraph* noteKey = nullptr;  // empty: the legend's entry for labels put on blocks after the fact
        PauseBands pauses;            // the recorder's pauses, hatched
        QCPGraph* pauseKey = nullptr; // empty: their legend entry
        QCPItemRect* lifetime = nullptr;
        std::optional<QCPRange> lifetimeSeconds;
        QVector<double> markSeconds; // setMarkedTimes' times, ascending (the graph's keys are folded)
        QCPItemStraightLine* highlight = nullptr;
        QCPItemRect* hover = nullptr; // the region under the mouse
        RegionSpans regions;
        int hovered = -1;
    };
    QCPItemRect* makeBandItem(QCPAxis* x, QCPAxis* y);
    double toAxis(double seconds) const { return fold_.toAxis(seconds); }
    double toSeconds(double axis) const { return fold_.toSeconds(axis); }
    void buildGapBreaks(QCPAxisRect* rect, QCPAxis* x, QCPAxis* y); // TimelineGaps.cpp
    QString gapAt(double seconds) const; // the tooltip's line for a folded gap, or empty
    void refold();                       // fold_ for analysis_ and foldGaps_
    // The band of one series over an axis range, asked of its level of detail piece by piece of the fold.
    TimelineLod::Band foldedBand(const TimelineLod& lod, const QCPRange& axis, int columns) const;
    void hoverRegion(size_t lane, double seconds);
    void showSpan(QCPItemRect* item, const std::optional<QCPRange>& seconds) const; // shaded, or hidden
    void clearLanes();
    void buildLanes(const std::vector<size_t>& devices);
    // Keeps the levels of detail and shows `shown` (seconds) again.
    void rebuildLanes(const std::vector<size_t>& devices, const QCPRange& shown);
    std::vector<size_t> devicesToShow() const;
    Lane* laneOf(size_t device);
    const Lane* laneOf(size_t device) const;
    // `kept`: the device's level of detail from a lane being rebuilt (built again when null).
    Band makeBand(std::unique_ptr<TimelineLod> kept, QCPAxis* x, QCPAxis* y, const QString& name,
                  const CompactSeries& values, int64_t initial, const DeviceTrace& t);
    void buildLane(size_t device);
    void refreshData(bool replotAfter = true);
    void applyColours();
    void buildMarkers(Lane& lane, size_t device, QCPAxis* x, QCPAxis* y);
    void buildBlockNotes(Lane& lane, size_t device, QCPAxis* x, QCPAxis* y); // TimelineNotes.cpp
    std::pair<QCPAbstractItem*, QCPAbstractItem*> addMarker(QCPAxisRect* rect, QCPAxis* x, QCPAxis* y,
                                                            double at, const QString& label, const QPen& pen);
    QCPGraph* legendKey(QCPAxis* x, QCPAxis* y, const QString& name, const QPen& pen);
    void applyOverlays();
    void placeAnnotationLabels();
    void syncLegend();
    QString marksAt(const Lane& l, double seconds) const;
    void rememberRange(const QCPRange& previous);
    size_t laneAt(const QPointF& pos) const;
    std::optional<double> markAt(size_t lane, const QPointF& pos) const; // a mark's time near pos
    double timeAt(const QPointF& pos) const;
    QCPRange fullRange() const;

    AnalysisPtr analysis_;
    int64_t originUs_ = 0;
    TimeFold fold_;              // the identity when nothing is folded
    QCPGraph* gapKey_ = nullptr; // empty: the legend's entry for the folded gaps
    bool foldGaps_ = true;
    std::optional<std::pair<int, size_t>> highlighted_; // setHighlightedEvent's device and event
    std::vector<Lane> lanes_;
    std::vector<int> laneOf_; // device index -> index in lanes_, -1 without a lane
    // While lanes are rebuilt for a picked device: the levels of detail of the devices that keep a
    // lane (by device, indexed by Series), so only the picked device's is built (O(its events)).
    std::map<size_t, std::array<std::unique_ptr<TimelineLod>, 3>> keptLods_;
    size_t pinned_ = SIZE_MAX; // the device picked elsewhere: it keeps a lane
    QCPLegend* legend_ = nullptr;
    QCPTextElement* notice_ = nullptr;         // "8 of 1024 devices shown", beside the legend
    bool overlays_[3] = {false, false, false}; // indexed by Overlay
    std::vector<QCPRange> back_, forward_;
    std::optional<QCPRange> selection_;
    std::optional<QCPRange> growth_;
    std::optional<double> selectAnchor_;
    QCPRange rangeAtPress_;
    bool refreshing_ = false;
    size_t pointsDrawn_ = 0;
    int dataWidth_ = -1; // axis rect width the current data was computed for
    QTimer wheelSettle_;
    QCPRange rangeBeforeWheel_;
    bool wheelActive_ = false;
};

} // namespace vs::ui
