#pragma once
// Growth-region gestures: a click on a ramp, a row of the Regions list or Ctrl+] / Ctrl+[ selects a
// region in the session (Session::selectRegion), and the block map's moment moves to its top; the
// views follow the session (the timeline shades it, the Leaks tab explains it, the Regions list
// makes it current, the status bar names it). On a cold open the worst region (the one the
// diagnosis explains) is selected without any input. The regions come from the Leaks panel's
// background job; this class hands them to the timeline and the Regions list, and looks them up.
#include "analysis/growth/GrowthRegions.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "session/CaptureLoader.h"

#include <QObject>

#include <optional>

namespace vs::ui {

class LeaksPanel;
class Session;
class TimelinePlot;

class RegionSelector : public QObject {
    Q_OBJECT
  public:
    RegionSelector(Session* session, TimelinePlot* timeline, LeaksPanel* leaks, QObject* parent);
    void select(int index); // index into regions(), brought into view
    void selectNext();      // in time order from the selected one
    void selectPrevious();
    // A click on flat ground: when zoomed in to about one iteration, that iteration's rise is selected
    // (true); otherwise nothing is (false) and the caller selects the event there.
    bool selectRampAt(double seconds);

    const std::vector<GrowthRegion>& regions() const { return growth().regions; }
    const std::optional<GrowthRegion>& selected() const;
    int selectedIndex() const;

  private:
    // A capture (or device) is shown: its regions arrive with the Leaks panel's next report.
    void reset();
    void onReport();
    void loadRegions();
    void apply(const GrowthRegion& r, int index, bool byUser);
    void clear(); // a range was selected instead
    int indexOf(const GrowthRegion& r) const;
    void reveal(double from, double to);
    double seconds(uint32_t event) const;
    std::vector<size_t> timeOrder() const;

    Session* session_;
    TimelinePlot* timeline_;
    LeaksPanel* leaks_;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    bool loaded_ = false; // regions_ holds this capture's regions
    const GrowthRegions& growth() const { return regions_ ? *regions_ : LeakReport::noGrowth(); }
    std::shared_ptr<const GrowthRegions> regions_; // the device's, from the Leaks panel's report
};

} // namespace vs::ui
