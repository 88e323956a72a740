#include "window/RegionSelector.h"

#include "common/ByteAxisTicker.h"
#include "models/RegionTableModel.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "util/TimeOrigin.h"

#include <algorithm>
#include <numeric>

namespace vs::ui {

RegionSelector::RegionSelector(Session* session, TimelinePlot* timeline, QObject* parent)
    : QObject(parent), session_(session), timeline_(timeline) {
    connect(session_, &Session::deviceChanged, this, &RegionSelector::reset);
    connect(session_, &Session::extended, this, [this] { // the next report brings the longer run's regions
        analysis_ = session_->analysis();
        loaded_ = false;
    });
    connect(session_, &Session::growthReady, this, &RegionSelector::loadRegions);
    connect(timeline_, &TimelinePlot::regionClicked, this, [this](size_t lane, int id) {
        if (lane == device_ && id >= 0 && size_t(id) < regions().size())
            apply(regions()[size_t(id)], id, true);
    });
    // a click on flat ground, zoomed in to about one iteration: that iteration's rise
    connect(timeline_, &TimelinePlot::timeClicked, this, [this](double seconds) {
        if (!timeline_->inSelection(seconds) && !timeline_->regionAt(device_, seconds)) selectRampAt(seconds);
    });
    connect(session_, &Session::rangeChanged, this, [this](std::optional<std::pair<double, double>> range) {
        if (range) clear(); // the Leaks tab explains the range now, not a region
    });
}

const std::optional<GrowthRegion>& RegionSelector::selected() const {
    return session_->region();
}

int RegionSelector::selectedIndex() const {
    return session_->regionIndex();
}

void RegionSelector::reset() {
    analysis_ = session_->analysis();
    device_ = session_->device();
    loaded_ = false;
    growth_.reset();
    for (size_t lane = 0; analysis_ && lane < analysis_->deviceCount(); ++lane)
        timeline_->setRegions(lane, {});
}

double RegionSelector::seconds(uint32_t event) const {
    const DeviceTrace& t = analysis_->trace(device_);
    return event < t.eventCount() ? secondsSince(timeline_->originUs(), t.timeUs[event]) : 0.0;
}

// The regions are the same for every question about a device: taken once, for hover, click and
// list. On a cold open (nothing selected yet) the first finding is selected, as the diagnosis explains
// it; a capture that ran out of memory is explained by its OOM instead.
void RegionSelector::loadRegions() {
    if (!analysis_ || session_->analysis() != analysis_ || session_->device() != device_) return;
    growth_ = session_->growth(); // shared, not copied
    loaded_ = true;
    QVector<RegionSpan> spans;
    for (size_t i = 0; i < regions().size(); ++i) {
        const GrowthRegion& r = regions()[i];
        spans.push_back({seconds(r.first), seconds(r.last), int(i), RegionTableModel::describe(r)});
    }
    timeline_->setRegions(device_, spans);
    const DeviceTrace& t = analysis_->trace(device_);
    const bool oom = t.find(Action::Oom) < t.eventCount();
    if (growth().findings.empty() || oom || session_->range() || (selected() && !session_->regionAutomatic()))
        return;
    const GrowthFinding& first = growth().findings.front();
    apply(growth().regionOf(first), int(first.region), false);
}

int RegionSelector::indexOf(const GrowthRegion& r) const {
    for (size_t i = 0; i < regions().size(); ++i)
        if (regions()[i].first == r.first && regions()[i].last == r.last && regions()[i].kind == r.kind)
            return int(i);
    return -1;
}

void RegionSelector::select(int index) {
    if (index < 0 || size_t(index) >= regions().size()) return;
    const GrowthRegion& r = regions()[size_t(index)];
    reveal(seconds(r.first), seconds(r.last)); // chosen from the list or the keyboard: bring it into view
    apply(r, index, true);
}

// The session's region: the timeline shades it, the Leaks tab explains it (its top group's blocks
// marked then), the Regions list makes it current, the status bar names it.
void RegionSelector::apply(const GrowthRegion& r, int index, bool byUser) {
    session_->markAllocations({}); // the earlier marks belonged to another selection
    session_->selectRegion(r, index, !byUser);
    session_->setMoment(size_t(r.last) + 1); // the block map at the ramp's top: every kept block alive
}

void RegionSelector::reveal(double from, double to) {
    const QCPRange v = timeline_->visibleRange();
    if (from >= v.lower && to <= v.upper) return;
    if (to - from < v.size() * 0.9)
        timeline_->setVisibleRange(QCPRange((from + to) / 2 - v.size() / 2, (from + to) / 2 + v.size() / 2));
    else
        timeline_->setVisibleRange(QCPRange(from - (to - from) * 0.05, to + (to - from) * 0.05));
}

std::vector<size_t> RegionSelector::timeOrder() const {
    std::vector<size_t> order(regions().size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [this](size_t a, size_t b) { return regions()[a].first < regions()[b].first; });
    return order;
}

void RegionSelector::selectNext() {
    const auto order = timeOrder();
    const auto at = std::find(order.begin(), order.end(), size_t(selectedIndex()));
    if (selectedIndex() >= 0 && at != order.end()) { // a listed region: the one after it
        if (at + 1 != order.end()) select(int(*(at + 1)));
        return;
    }
    for (size_t i : order) // none, or an iteration's rise: the first region starting after it
        if (!selected() || regions()[i].first > selected()->first) return select(int(i));
}

void RegionSelector::selectPrevious() {
    const auto order = timeOrder();
    const auto at = std::find(order.begin(), order.end(), size_t(selectedIndex()));
    if (selectedIndex() >= 0 && at != order.end()) {
        if (at != order.begin()) select(int(*(at - 1)));
        return;
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it)
        if (!selected() || regions()[*it].first < selected()->first) return select(int(*it));
}

bool RegionSelector::selectRampAt(double at) {
    const Iterations& its = growth().iterations;
    if (!loaded_ || its.count() < 3 || growth_->lifetimes().empty()) return false;
    const DeviceTrace& t = analysis_->trace(device_);
    const auto us = microsecondsAt(timeline_->originUs(), at);
    const auto after = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), us) - t.timeUs.begin();
    const auto event = uint32_t(std::max<ptrdiff_t>(0, after - 1));
    // zoomed in far enough that the iteration under the click fills an eighth of the view
    const size_t k = its.indexOf(event);
    const uint32_t from = k == 0 ? 0 : its.starts[k - 1];
    const uint32_t to = k < its.count() ? its.starts[k] : uint32_t(t.eventCount() - 1);
    if (seconds(to) - seconds(from) < timeline_->visibleRange().size() / 8) return false;
    const auto ramp = iterationRamp(*analysis_, device_, growth_->lifetimes(), its, event); // O(iteration)
    if (!ramp) return false;
    apply(*ramp, -1, true);
    return true;
}

void RegionSelector::clear() {
    session_->selectRegion(std::nullopt);
    session_->markAllocations({});
}

} // namespace vs::ui
