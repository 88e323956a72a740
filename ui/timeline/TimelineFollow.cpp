// TimelinePlot's side of the session: what it draws of the selection, and the selection its clicks
// and drags make. Every change goes through the session, so the event list, the Leaks tab and the
// block map follow a click here as they follow one anywhere else.
#include "session/Session.h"
#include "timeline/TimelinePlot.h"

#include <algorithm>
#include <memory>

namespace vs::ui {

namespace {
// A block's lifetime on its device: from its alloc event to its free, or to the end of the trace.
QCPRange lifetimeOf(const Session& session, uint32_t allocEvent) {
    const size_t d = session.device();
    const DeviceTrace& t = session.analysis()->trace(d);
    size_t freed = t.eventCount() - 1;
    for (size_t i = allocEvent + 1; i < t.eventCount(); ++i)
        if ((t.action[i] == Action::FreeRequested || t.action[i] == Action::FreeCompleted) &&
            t.addr[i] == t.addr[allocEvent]) {
            freed = i;
            break;
        }
    return QCPRange(session.secondsAt(d, allocEvent), session.secondsAt(d, uint32_t(freed)));
}
} // namespace

void TimelinePlot::follow(Session* session) {
    connect(this, &TimelinePlot::visibleRangeChanged, session, &Session::setVisibleSpan);
    connect(session, &Session::opened, this,
            [this, session] { setAnalysis(session->analysis(), session->device()); });
    connect(session, &Session::deviceChanged, this, [this](size_t device) {
        showDevice(device); // first: the other followers mark the new device's lane
        setHighlightedEvent(-1, SIZE_MAX, false);
        setSelection(std::nullopt);
        setMarkedTimes(device, {});
        setGrowthRegion(std::nullopt);
    });
    connect(session, &Session::extended, this, [this, session] { grow(session->analysis()); });
    // The marker: scrolled into view only when outside it (a click here is always inside).
    connect(session, &Session::eventSelected, this, [this, session](std::optional<size_t> event) {
        if (event) setHighlightedEvent(session->analysis()->trace(session->device()).device, *event, true);
    });
    connect(session, &Session::momentPlayed, this, [this, session](size_t applied) {
        if (applied)
            setHighlightedEvent(session->analysis()->trace(session->device()).device, applied - 1, true);
    });
    connect(session, &Session::regionChanged, this, [this, session] {
        const auto& r = session->region();
        const size_t d = session->device();
        setGrowthRegion(
            r ? std::optional(QCPRange(session->secondsAt(d, r->first), session->secondsAt(d, r->last)))
              : std::nullopt);
    });
    // the marked allocations by time, for a click on one of their ticks
    auto marked = std::make_shared<std::vector<std::pair<double, uint32_t>>>();
    connect(session, &Session::allocationsMarked, this,
            [this, session, marked](const std::vector<uint32_t>& events) {
                QVector<double> seconds;
                seconds.reserve(qsizetype(events.size()));
                marked->clear();
                for (uint32_t e : events) {
                    seconds.push_back(session->secondsAt(session->device(), e));
                    marked->emplace_back(seconds.back(), e);
                }
                std::sort(marked->begin(), marked->end());
                setMarkedTimes(session->device(), seconds);
            });
    connect(this, &TimelinePlot::markClicked, session, [session, marked](size_t device, double seconds) {
        const auto it = std::lower_bound(marked->begin(), marked->end(), std::pair(seconds, uint32_t(0)));
        if (device == session->device() && it != marked->end() && it->first == seconds)
            session->selectEvent(it->second);
    });
    connect(session, &Session::blockSelected, this, [this, session](uint32_t allocEvent) {
        setLifetime(session->device(), lifetimeOf(*session, allocEvent));
    });
    // gestures: a lane's device, the event under a click, a Shift+dragged range
    connect(this, &TimelinePlot::laneClicked, session, &Session::setDevice);
    connect(this, &TimelinePlot::timeClicked, session,
            [session](double seconds) { session->selectEvent(session->eventAt(seconds)); });
    connect(this, &TimelinePlot::selectionChanged, session, [session](double from, double to) {
        session->setRange(to > from ? std::optional(std::pair(from, to)) : std::nullopt);
    });
}

} // namespace vs::ui
