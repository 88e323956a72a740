#pragma once
// The selected growth region, linked across views: a click on a ramp, a row of the Regions list or
// Ctrl+] / Ctrl+[ selects a region; it is shaded on the timeline, explained in the Leaks tab, listed
// as the current row, and the block map moves to the region's top with its blocks marked. On a cold
// open the worst region (the one the diagnosis explains) is selected without any input. The regions
// come from the Leaks panel's background job; hover and click look them up in a sorted vector. The
// selection itself is the session's (Session::region): this class turns gestures into it and shows it.
#include "session/CaptureLoader.h"
#include "analysis/GrowthRegions.h"
#include "analysis/LeakDiagnosis.h"

#include <QObject>

#include <optional>

namespace vs::ui {

class BlockMapPanel;
class LeaksPanel;
class Session;
class TimelinePlot;

class RegionSelector : public QObject {
    Q_OBJECT
  public:
    RegionSelector(Session* session, TimelinePlot* timeline, LeaksPanel* leaks, BlockMapPanel* blockMap,
                   QObject* parent);
    void select(int index); // index into regions(), explained in the Leaks tab
    void selectNext();      // in time order from the selected one
    void selectPrevious();
    // A click on flat ground: when zoomed in to about one iteration, that iteration's rise is selected
    // (true); otherwise nothing is (false) and the caller selects the event there.
    bool selectRampAt(double seconds);
    void clear(); // a range was selected instead

    const std::vector<GrowthRegion>& regions() const { return growth().regions; }
    const std::optional<GrowthRegion>& selected() const;
    int selectedIndex() const;

  signals:
    // A region was selected: a sentence for the status bar; `byUser` false on a cold open.
    void regionSelected(const QString& sentence, bool byUser);

  private:
    // A capture (or device) is shown: its regions arrive with the Leaks panel's next report.
    void reset();
    void onReport();
    void loadRegions();
    void apply(const GrowthRegion& r, int index, bool explain, bool byUser);
    int indexOf(const GrowthRegion& r) const;
    void reveal(double from, double to);
    double seconds(uint32_t event) const;
    std::vector<size_t> timeOrder() const;

    Session* session_;
    TimelinePlot* timeline_;
    LeaksPanel* leaks_;
    BlockMapPanel* blockMap_;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    bool loaded_ = false; // regions_ holds this capture's regions
    const GrowthRegions& growth() const { return regions_ ? *regions_ : LeakReport::kNoGrowth; }
    std::shared_ptr<const GrowthRegions> regions_; // the device's, from the Leaks panel's report
};

} // namespace vs::ui
