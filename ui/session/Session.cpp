#include "session/Session.h"

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
    emit opened();
    emit deviceChanged(device_);
}

void Session::setDevice(size_t index) {
    if (!analysis_ || index >= analysis_->deviceCount() || index == device_) return;
    device_ = index;
    event_.reset(), range_.reset(), region_.reset(), regionIndex_ = -1;
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

void Session::selectRegion(std::optional<GrowthRegion> region, int index) {
    region_ = std::move(region);
    regionIndex_ = region_ ? index : -1;
    emit regionChanged();
}

} // namespace vs::ui
