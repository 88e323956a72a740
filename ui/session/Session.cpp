#include "session/Session.h"

#include <algorithm>

namespace vs::ui {

Session::Session(QObject* parent) : QObject(parent), jobs_(this) {}

void Session::open(const QString& path, AnalysisPtr analysis) {
    jobs_.cancelAll(); // results about the previous capture must not arrive
    analysis_ = std::move(analysis);
    path_ = path;
    event_.reset(), range_.reset(), region_.reset(), regionIndex_ = -1;
    device_ = 0; // the longest trace first, as memory_viz does
    for (size_t i = 1; analysis_ && i < analysis_->deviceCount(); ++i)
        if (analysis_->trace(i).eventCount() > analysis_->trace(device_).eventCount()) device_ = i;
    moment_ = endOfDevice();
    emit opened();
    emit deviceChanged(device_);
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
    emit extended();
    return true;
}

void Session::setDevice(size_t index) {
    if (!analysis_ || index >= analysis_->deviceCount() || index == device_) return;
    device_ = index;
    event_.reset(), range_.reset(), region_.reset(), regionIndex_ = -1;
    moment_ = endOfDevice();
    emit deviceChanged(device_);
}

double Session::secondsAt(size_t device, uint32_t event) const {
    return analysis_ && event < analysis_->trace(device).eventCount() ? analysis_->secondsAt(device, event) : 0.0;
}

void Session::selectEvent(std::optional<size_t> event) {
    if (event == event_) return;
    event_ = event;
    emit eventSelected(event_);
}

void Session::setRange(std::optional<std::pair<double, double>> range) {
    if (range == range_) return;
    range_ = range;
    emit rangeChanged(range_);
}

void Session::setMoment(size_t eventsApplied) {
    eventsApplied = std::min(eventsApplied, endOfDevice());
    if (!analysis_ || eventsApplied == moment_) return;
    moment_ = eventsApplied;
    emit momentChanged(moment_);
}

void Session::selectRegion(std::optional<GrowthRegion> region, int index) {
    region_ = std::move(region);
    regionIndex_ = region_ ? index : -1;
    emit regionChanged();
}

} // namespace vs::ui
