#include "timeline/FragmentationOverlay.h"

#include "common/Throttle.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"

#include <QSettings>

namespace vs::ui {

FragmentationOverlay::FragmentationOverlay(Session* session, TimelinePlot* timeline, QObject* parent)
    : QObject(parent), session_(session), timeline_(timeline) {
    connect(session_, &Session::opened, this, [this] {
        shown_.clear(); // the previous capture's
        recompute();
    });
    // A growing capture: one replay pass at most every 2 s, and only while the overlay is shown (a
    // hidden one checks again 2 s later, so it is current soon after it is turned on).
    live_ = new Throttle(
        2000,
        [this] {
            if (timeline_->overlayVisible(TimelinePlot::Overlay::Fragmentation))
                recompute();
            else
                live_->request();
        },
        this);
    connect(session_, &Session::extended, live_, &Throttle::request);
    connect(timeline_, &TimelinePlot::lanesChanged, this, [this] { show(shown_); });
}

void FragmentationOverlay::recompute() {
    // Off the GUI thread: one more replay pass, sampled at 2000 moments per device.
    using Series = std::vector<std::vector<FragmentationSample>>;
    const AnalysisPtr a = session_->analysis();
    if (!a) return;
    session_->jobs().run<Series>(
        JobKey::Fragmentation, this,
        [a](const JobControl&) {
            Series all;
            for (size_t d = 0; d < a->deviceCount(); ++d)
                all.push_back(
                    fragmentationSeries(a->trace(d), a->capture().streams, a->replay(d), a->rules()));
            return all;
        },
        [this](const Series& all) { show(all); });
}

void FragmentationOverlay::show(const std::vector<std::vector<FragmentationSample>>& all) {
    const AnalysisPtr a = session_->analysis();
    if (&all != &shown_) shown_ = all;
    const uint64_t request =
        uint64_t(QSettings().value(QStringLiteral("fragmentationRequestMiB"), 20).toDouble() * (1 << 20));
    for (size_t d = 0; d < all.size() && d < a->deviceCount(); ++d) {
        auto seconds = [&](uint32_t events) { return events ? session_->secondsAt(d, events - 1) : 0.0; };
        QVector<QCPGraphData> largest, fragments;
        for (const auto& s : all[d]) {
            largest.push_back({seconds(s.events), double(s.largestFree)});
            fragments.push_back({seconds(s.events), double(s.freeFragments)});
        }
        QVector<double> marks;
        for (size_t i : wouldNeedNewSegment(all[d], request)) marks.push_back(seconds(all[d][i].events));
        timeline_->setFragmentation(d, largest, marks, fragments);
    }
}

} // namespace vs::ui
