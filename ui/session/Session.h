#pragma once
// One opened capture and everything a user chose in it: the analysis, the device being browsed,
// the selected event, the selected range, the moment the block map shows, the one time origin
// (from core: the earliest first event of any device) and the background jobs. State lives here
// once; the window and panels read it and follow its signals instead of keeping copies: a view
// that selects something tells the session, and every view (itself included) follows the signal.
// A setter given the value the session already holds emits nothing, so following a signal never
// loops back. Two sessions can exist at once (a comparison).
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/peak/PeakReport.h"
#include "session/CaptureLoader.h"
#include "session/JobRunner.h"
#include "util/TimeOrigin.h"

#include <QObject>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace vs::ui {

class Session : public QObject {
    Q_OBJECT
  public:
    explicit Session(QObject* parent = nullptr);

    // Replaces everything: the old capture's jobs are cancelled and its selection forgotten. The
    // device shown first is the one with the longest trace.
    void open(const QString& path, AnalysisPtr analysis);
    // A live capture grew: `grown` holds the open capture's events and more after them. Views append
    // instead of rebuilding and every selection stays. False (nothing changes) when `before` is not
    // the open analysis or what is new needs a rebuild: another device, an OOM (a marker), new
    // annotations, another time origin; the caller opens `grown` instead.
    bool extend(const AnalysisPtr& grown, const AnalysisPtr& before);
    AnalysisPtr analysis() const { return analysis_; }
    const QString& path() const { return path_; }
    bool isOpen() const { return analysis_ != nullptr; }

    size_t device() const { return device_; } // index into the capture's devices
    void setDevice(size_t index);             // clears the event and range selection

    int64_t originUs() const { return analysis_ ? analysis_->originUs() : 0; }
    double secondsAt(size_t device, uint32_t event) const;
    double secondsOf(int64_t timeUs) const { return secondsSince(originUs(), timeUs); }

    // The last event at or before `seconds` on device() (the first when none is).
    size_t eventAt(double seconds) const;

    std::optional<size_t> selectedEvent() const { return event_; } // on device()
    // The block map shows the moment just after the selected event unless `moment` is Stays (a
    // block picked in the map: the map stays where it is).
    enum class Moment { Follows, Stays };
    void selectEvent(std::optional<size_t> event, Moment moment = Moment::Follows);
    std::optional<std::pair<double, double>> range() const { return range_; } // seconds
    void setRange(std::optional<std::pair<double, double>> range);
    // The selected growth region of device(): a listed region (index into the device's regions) or an
    // iteration's rise (index -1). Cleared by a new capture, another device or a selected range.
    // The moment the block map shows, as events applied on device(): the end of its trace on open and
    // on another device; moved by a selected event, a region's top, a retention graph, the map's Play.
    size_t moment() const { return moment_; }
    void setMoment(size_t eventsApplied);
    // The span of time the timeline shows (seconds on its axis): the views drawn on its clock follow it.
    void setVisibleSpan(double from, double to);
    std::pair<double, double> visibleSpan() const { return span_; }
    // The block map's Play: the moment moves and the timeline's marker with it (momentPlayed).
    void playTo(size_t eventsApplied);
    const std::optional<GrowthRegion>& region() const { return region_; }
    int regionIndex() const { return regionIndex_; }
    // `automatic`: chosen by the program (a cold open explains the worst region), not by the user.
    bool regionAutomatic() const { return regionAutomatic_; }
    void selectRegion(std::optional<GrowthRegion> region, int index = -1, bool automatic = false);

    // Marks on device() shown by several views at once. The selected Leaks group's allocations
    // (timeline ticks, block map); blocks a retention holder keeps (block map); a block picked in the
    // block map (its lifetime on the timeline, its holder in Retention; its alloc event is selected,
    // the moment stays); an address pointed at in the memory map (highlighted in the block map);
    // allocations listed in the event list on request (marked there, F3 steps through them).
    void markAllocations(std::vector<uint32_t> allocEvents);
    void markAddresses(std::vector<uint64_t> addresses);
    void selectBlock(uint32_t allocEvent);
    void pointAtAddress(uint64_t address);
    void listAllocations(std::vector<uint32_t> allocEvents);

    // The growth analysis of device() (its allocations' lifetimes, growth regions and findings),
    // found once in the background when a capture opens, the device changes or a live capture grows;
    // null until growthReady(). Every view of growth follows it: the timeline's regions, the Regions
    // list, the status bar, the Leaks tab.
    std::shared_ptr<const LeakInputs> growth() const { return growth_; }
    size_t growthRuns() const { return growthRuns_; } // analyses started, for tests
    // What makes device()'s peak (PeakReport), found in the background alongside the growth analysis;
    // null until peakReady().
    std::shared_ptr<const PeakReport> peak() const { return peak_; }

    JobRunner& jobs() { return jobs_; }

  signals:
    void opened();                     // a new analysis: everything changed
    void extended();                   // the same capture with more events after (extend())
    void deviceChanged(size_t device); // after opened() too
    void eventSelected(std::optional<size_t> event);
    void rangeChanged(std::optional<std::pair<double, double>> range);
    void regionChanged();
    void growthReady(); // growth() holds device()'s analysis
    void peakReady();   // peak() holds device()'s peak
    void momentChanged(size_t eventsApplied);
    void visibleSpanChanged(double from, double to);
    void momentPlayed(size_t eventsApplied);
    void allocationsMarked(const std::vector<uint32_t>& allocEvents);
    void addressesMarked(const std::vector<uint64_t>& addresses);
    void blockSelected(uint32_t allocEvent);
    void addressPointed(uint64_t address);
    void allocationsListed(const std::vector<uint32_t>& allocEvents);

  private:
    AnalysisPtr analysis_;
    QString path_;
    size_t device_ = 0;
    std::optional<size_t> event_;
    std::optional<std::pair<double, double>> range_;
    std::optional<GrowthRegion> region_;
    int regionIndex_ = -1;
    bool regionAutomatic_ = false;
    size_t moment_ = 0;
    std::pair<double, double> span_{0.0, 0.0};
    size_t endOfDevice() const { return analysis_ ? analysis_->trace(device_).eventCount() : 0; }
    void analyseGrowth(); // of device(), in the background, and its peak
    void analysePeak();
    std::shared_ptr<const PeakReport> peak_;
    std::shared_ptr<const LeakInputs> growth_;
    size_t growthRuns_ = 0;
    JobRunner jobs_;
};

} // namespace vs::ui
