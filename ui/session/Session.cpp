#include "session/Session.h"

#include <algorithm>
#include <cmath>

namespace vs::ui {

Session::Session(QObject* parent) : QObject(parent), jobs_(this) {}

void Session::open(const QString& path, AnalysisPtr analysis) {
    jobs_.cancelAll(); // results about the previous capture must not arrive
    analysis_ = std::move(analysis);
    path_ = path;
    event_.reset(), range_.reset(), region_.reset(), regionIndex_ = -1, regionAutomatic_ = false;
    device_ = analysis_ ? analysis_->defaultDevice() : 0;
    moment_ = endOfDevice();
    analyseGrowth();
    emit opened();
    emit deviceChanged(device_);
}

void Session::analyseGrowth() {
    growth_.reset();
    if (!analysis_) return;
    ++growthRuns_;
    const AnalysisPtr a = analysis_;
    const size_t device = device_;
    using Inputs = std::shared_ptr<const LeakInputs>;
    jobs_.run<Inputs>(
        JobKey::Growth, this,
        [a, device](const JobControl&) {
            return std::make_shared<const LeakInputs>(prepareLeakInputs(*a, device));
        },
        [this, a, device](const Inputs& in) {
            if (a != analysis_ || device != device_) return; // a newer request follows
            growth_ = in;
            emit growthReady();
        });
    analysePeak();
}

void Session::analysePeak() {
    peak_.reset();
    const AnalysisPtr a = analysis_;
    const size_t device = device_;
    using Peak = std::shared_ptr<const PeakReport>;
    jobs_.run<Peak>(
        JobKey::Peak, this,
        [a, device](const JobControl&) {
            return std::make_shared<const PeakReport>(explainPeak(*a, device));
        },
        [this, a, device](const Peak& p) {
            if (a != analysis_ || device != device_) return; // a newer request follows
            peak_ = p;
            emit peakReady();
        });
}

// Only appended, and nothing a view draws once per capture (markers, lanes, the origin) is new.
static bool growsInPlace(const CaptureAnalysis& before, const CaptureAnalysis& grown) {
    if (grown.deviceCount() != before.deviceCount() || grown.originUs() != before.originUs() ||
        grown.capture().annotations.size() != before.capture().annotations.size())
        return false;
    for (size_t d = 0; d < grown.deviceCount(); ++d) {
        const DeviceTrace &old = before.trace(d), &now = grown.trace(d);
        if (now.device != old.device || now.eventCount() < old.eventCount()) return false;
        for (size_t i = old.eventCount(); i < now.eventCount(); ++i)
            if (now.action[i] == Action::Oom) return false;
    }
    return true;
}

bool Session::extend(const AnalysisPtr& grown, const AnalysisPtr& before) {
    if (!analysis_ || !grown || before != analysis_ || !growsInPlace(*before, *grown)) return false;
    const bool atEnd = moment_ == endOfDevice();
    analysis_ = grown;
    if (atEnd) moment_ = endOfDevice(); // the block map follows the end (BlockMapView::grow)
    analyseGrowth();
    emit extended();
    return true;
}

void Session::setDevice(size_t index) {
    if (!analysis_ || index >= analysis_->deviceCount() || index == device_) return;
    device_ = index;
    event_.reset(), range_.reset(), region_.reset(), regionIndex_ = -1, regionAutomatic_ = false;
    moment_ = endOfDevice();
    analyseGrowth();
    emit deviceChanged(device_);
}

double Session::secondsAt(size_t device, uint32_t event) const {
    return analysis_ && event < analysis_->trace(device).eventCount() ? analysis_->secondsAt(device, event)
                                                                      : 0.0;
}

size_t Session::eventAt(double seconds) const {
    if (!analysis_) return 0;
    const DeviceTrace& t = analysis_->trace(device_);
    const auto us = microsecondsAt(originUs(), seconds);
    const auto n = std::upper_bound(t.timeUs.begin(), t.timeUs.end(), us) - t.timeUs.begin();
    return static_cast<size_t>(std::max<ptrdiff_t>(0, n - 1));
}

void Session::selectEvent(std::optional<size_t> event, Moment moment) {
    if (event == event_ || (event && *event >= endOfDevice())) return;
    event_ = event;
    emit eventSelected(event_);
    if (event_ && moment == Moment::Follows) setMoment(*event_ + 1); // the block map follows
}

void Session::setRange(std::optional<std::pair<double, double>> range) {
    if (range == range_) return;
    range_ = range;
    emit rangeChanged(range_);
}

void Session::setVisibleSpan(double from, double to) {
    if (span_ == std::pair(from, to)) return;
    span_ = {from, to};
    emit visibleSpanChanged(from, to);
}

void Session::setMoment(size_t eventsApplied) {
    eventsApplied = std::min(eventsApplied, endOfDevice());
    if (!analysis_ || eventsApplied == moment_) return;
    moment_ = eventsApplied;
    emit momentChanged(moment_);
}

static bool sameRegion(const std::optional<GrowthRegion>& a, const std::optional<GrowthRegion>& b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->first == b->first && a->last == b->last && a->kind == b->kind));
}

void Session::playTo(size_t eventsApplied) {
    setMoment(eventsApplied);
    emit momentPlayed(moment_);
}

void Session::selectRegion(std::optional<GrowthRegion> region, int index, bool automatic) {
    index = region ? index : -1;
    automatic = region && automatic;
    if (sameRegion(region, region_) && index == regionIndex_ && automatic == regionAutomatic_) return;
    region_ = std::move(region);
    regionIndex_ = index;
    regionAutomatic_ = automatic;
    emit regionChanged();
}

void Session::markAllocations(std::vector<uint32_t> allocEvents) {
    emit allocationsMarked(allocEvents);
}

void Session::markAddresses(std::vector<uint64_t> addresses) {
    emit addressesMarked(addresses);
}

void Session::selectBlock(uint32_t allocEvent) {
    if (!analysis_ || allocEvent >= endOfDevice()) return;
    emit blockSelected(allocEvent);
    selectEvent(allocEvent, Moment::Stays); // where it was allocated, without moving the map away
}

void Session::pointAtAddress(uint64_t address) {
    emit addressPointed(address);
}

void Session::listAllocations(std::vector<uint32_t> allocEvents) {
    if (!allocEvents.empty()) emit allocationsListed(allocEvents);
}

} // namespace vs::ui
