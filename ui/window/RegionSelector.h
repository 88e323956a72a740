#pragma once
// Growth-region gestures: a click on a ramp, a row of the Regions list or Ctrl+] / Ctrl+[ selects a
// region in the session (Session::selectRegion), and the block map's moment moves to its top; the
// views follow the session (the timeline shades it, the Leaks tab explains it, the Regions list
// makes it current, the status bar names it). On a cold open the first finding (the one the
// diagnosis explains) is selected without any input. The regions are the session's growth analysis
// (Session::growth); this class hands them to the timeline and looks them up.
#include "analysis/growth/GrowthRegions.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "session/CaptureLoader.h"

#include <QObject>

#include <optional>

namespace vs::ui {

class Session;
class TimelinePlot;

class RegionSelector : public QObject {
    Q_OBJECT
  public:
    RegionSelector(Session* session, TimelinePlot* timeline, QObject* parent);
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
    // A capture (or device) is shown: its regions arrive with the session's growth analysis.
    void reset();
    void loadRegions(); // the session's growth arrived: the timeline's regions, the first finding selected
    void apply(const GrowthRegion& r, int index, bool byUser);
    void clear(); // a range was selected instead
    int indexOf(const GrowthRegion& r) const;
    void reveal(double from, double to);
    double seconds(uint32_t event) const;
    std::vector<size_t> timeOrder() const;

    Session* session_;
    TimelinePlot* timeline_;
    AnalysisPtr analysis_;
    size_t device_ = 0;
    bool loaded_ = false; // growth_ holds this capture's regions
    const GrowthRegions& growth() const { return growth_ ? *growth_->regions : LeakReport::noGrowth(); }
    std::shared_ptr<const LeakInputs> growth_; // the device's, from the session (kept while a live one grows)
};

} // namespace vs::ui
