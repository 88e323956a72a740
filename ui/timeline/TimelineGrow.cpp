// A live capture grows a few times a second. Rebuilding the lanes would redo every band's level of
// detail (O(events): 0.5 s at 10M events); appending costs O(new events), so a refresh stays cheap
// however long the session runs. Session::extend() has checked that nothing else changed.
#include "timeline/TimelinePlot.h"

namespace vs::ui {

void TimelinePlot::grow(AnalysisPtr grown) {
    if (!grown || !analysis_ || analysis_->deviceCount() != grown->deviceCount())
        return setAnalysis(std::move(grown), pinned_);
    const QCPRange before = fullRange(), shown = visibleRange();
    analysis_ = std::move(grown);
    for (Lane& lane : lanes_) {
        const DeviceTrace& t = analysis_->trace(lane.device);
        const ReplayResult& r = analysis_->replay(lane.device);
        Band* bands = lane.bands;
        bands[int(Series::Reserved)].lod->extend(t.timeUs, r.reserved);
        bands[int(Series::Active)].lod->extend(t.timeUs, r.active);
        bands[int(Series::Allocated)].lod->extend(t.timeUs, r.allocated);
    }
    // A view that showed the latest moment keeps showing it: the whole run when it showed all, the
    // same width at the end when zoomed; a view on older events stays where the user put it.
    const QCPRange after = fullRange();
    const double slack = before.size() * 1e-6;
    if (shown.upper < before.upper - slack) return refreshData(true);
    if (shown.lower <= before.lower + slack) return setVisibleRange(after, false);
    const double shift = after.upper - before.upper;
    setVisibleRange(QCPRange(shown.lower + shift, shown.upper + shift), false);
}

} // namespace vs::ui
