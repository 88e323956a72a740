#pragma once
// The block map: the allocator's segments at one moment, in address order, each block drawn to
// scale (allocated, pending free, free) and coloured by state, allocation site or age. Ctrl+wheel
// zooms (bytes per pixel), the wheel scrolls, hovering tells a block's details and clicking
// selects it. Only visible rows are drawn; blocks below a pixel still get a pixel.
#include "analysis/categories/Categories.h"
#include "analysis/replay/BlockLayout.h"
#include "analysis/replay/GraphPools.h"
#include "session/CaptureLoader.h"

#include <QAbstractScrollArea>

#include <functional>

#include <optional>

namespace vs::ui {

class BlockMapView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    enum class ColourBy { State, Site, Age, Category };
    explicit BlockMapView(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis, size_t device);
    void grow(AnalysisPtr grown); // the same capture with more events: the moment stays (or follows the end)
    void setMoment(size_t eventsApplied); // the state after that many events
    size_t moment() const { return moment_; }
    void setColourBy(ColourBy c);
    // What each allocation is (docs/categories.md), for ColourBy::Category; computed off the GUI
    // thread by the panel. Null: every block draws as unknown.
    void setCategories(std::shared_ptr<const DeviceCategories> categories);
    ColourBy colourBy() const { return colourBy_; }
    // What the colours of the current mode mean, in drawing colours (the panel's legend).
    struct LegendEntry {
        QString name;
        QColor colour;
    };
    QList<LegendEntry> legend() const;
    void setZoom(double factor);                                 // 1 = everything fits the view
    void setHighlightedAddress(std::optional<uint64_t> address); // outlines the block holding it
    // Blocks drawn in the mark colour, at any moment they are alive: those made by these alloc events
    // (a growth region's or a group's allocations) or at these addresses (a retention group's).
    void setMarkedAllocations(std::vector<uint32_t> allocEvents);
    void setMarkedAddresses(std::vector<uint64_t> addresses);
    size_t markedAlive() const; // marked blocks alive at the moment shown
    bool isMarked(const StateBlock& b) const;
    void zoomToSegment(size_t segment); // the segment fills the visible rows, scrolled into view
    double zoom() const { return zoom_; }
    // The state at the moment shown, replayed when first needed: a hidden map does no work when the
    // moment moves (a click elsewhere at 50M events would otherwise replay here, ~100 ms).
    const std::vector<StateSegment>& segments() const;
    // Where a replay may run off the GUI thread: asked for the moment's state when the map is shown
    // holding a stale one (at 50M events ~0.2 s); the answer comes back through setState. Until it
    // does the map says it is replaying. Without a replayer the replay runs when needed, here.
    using Replayer = std::function<void(size_t moment)>;
    void setReplayer(Replayer replayer) { replayer_ = std::move(replayer); }
    void setState(size_t moment, std::vector<StateSegment> segments);
    bool replaying() const { return awaiting_; }
    // Segment and block under a viewport point (segment -1: none).
    BlockLayout::Hit hitTest(QPoint viewportPos) const;
    QString describe(const BlockLayout::Hit& h) const;

    // A CUDA graph private pool's colour: the block map's stripe, the composition's band
    static QColor graphPoolColour();

  signals:
    void blockClicked(size_t device, uint32_t allocEvent);
    void stateReady(); // a background replay's state arrived and is shown

  protected:
    void paintEvent(QPaintEvent*) override;
    void showEvent(QShowEvent* e) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    bool viewportEvent(QEvent* e) override;

  private:
    static constexpr int kRowHeight = 14, kRowGap = 3, kMargin = 4;
    BlockLayout layout() const;
    struct Colours;
    QColor colourOf(const StateBlock& b, const Colours& c, bool marked) const;
    struct Colours {
        QColor marked, pending, allocated, baseline, free, ghost; // ghost: the hatch over ghost blocks
        QColor age(double f) const {
            return QColor::fromHsvF(0.6f, 0.8f, float(0.35 + 0.65 * f));
        } // newer brighter
    };
    Colours colours() const; // for the palette
    std::shared_ptr<const GraphPools> pools_ =
        std::make_shared<const GraphPools>(); // the device's private pools (CUDA graphs), from the snapshot
    void updateScroll();

    AnalysisPtr analysis_;
    size_t device_ = 0, moment_ = 0;
    mutable std::vector<StateSegment> segments_; // valid unless stale_
    mutable bool stale_ = false;
    mutable bool awaiting_ = false; // a background replay of moment_ was asked for
    // Whether each block of segments_ (in order, across segments) is marked: found once per state
    // and marks, not per block per paint (two binary searches each, 458k blocks at 50M events).
    const std::vector<bool>& markedFlags() const;
    mutable std::vector<bool> markedFlags_;
    mutable bool flagsStale_ = true;
    Replayer replayer_;
    ColourBy colourBy_ = ColourBy::State;
    std::shared_ptr<const DeviceCategories> categories_;
    double zoom_ = 1;
    std::optional<uint64_t> highlight_;
    std::vector<uint32_t> markedEvents_;    // ascending
    std::vector<uint64_t> markedAddresses_; // ascending
};

} // namespace vs::ui
