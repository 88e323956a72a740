#include "window/OpeningFocus.h"

#include "session/Session.h"

namespace vs::ui {

OpeningFocus::OpeningFocus(Session* session, QObject* parent) : QObject(parent), session_(session) {
    connect(session_, &Session::deviceChanged, this, &OpeningFocus::reset); // after opened() too
    connect(session_, &Session::growthReady, this, &OpeningFocus::onGrowth);
    connect(session_, &Session::peakReady, this, &OpeningFocus::onPeak);
}

void OpeningFocus::reset() {
    decided_ = quietRun_ = false;
}

bool OpeningFocus::untouched() const {
    return !session_->selectedEvent() && !session_->range() &&
           !(session_->region() && !session_->regionAutomatic());
}

void OpeningFocus::onGrowth() {
    if (decided_ || !untouched()) return;
    const DeviceTrace& t = session_->analysis()->trace(session_->device());
    if (const size_t oom = t.find(Action::Oom); oom < t.eventCount()) {
        decided_ = true;
        session_->selectEvent(oom);
        emit leaksWanted();
        return;
    }
    if (!session_->growth()->regions->findings.empty()) {
        decided_ = true; // the first finding is selected (RegionSelector)
        return;
    }
    quietRun_ = true;
    onPeak(); // the peak may have arrived first
}

void OpeningFocus::onPeak() {
    const auto peak = session_->peak();
    if (decided_ || !quietRun_ || !peak || peak->empty || !untouched()) return;
    decided_ = true;
    session_->selectEvent(peak->event);
    emit peakWanted();
}

} // namespace vs::ui
