// The live refresh a user sees: a capture re-encoded as a stream of small chunks is fed into
// LiveCapture (decode, append, continue the replay: the worker thread's part, not timed here) and
// each snapshot is handed to the real window (offscreen) as LiveController hands it: the first one
// opens, the later ones grow the views in place (Session::extend: timeline level of detail, event
// rows, device picker, block map at the end; leaks and memory map go to background jobs). Timed:
// the GUI thread's share, from the hand-over until the repaint is done. Prints the median and
// worst refresh around given event counts. Not a test: asserts nothing.
//   bench_live_window CAPTURE [EVENTS_PER_CHUNK=50000] [MILESTONES=1000000,10000000]
#include "LiveChunks.h"
#include "load/LiveCapture.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "window/MainWindow.h"

#include <QApplication>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

namespace {

// CPU time of the calling (GUI) thread: on a busy machine wall time also counts waiting for a core.
double threadCpuMs() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Refresh {
    size_t events;
    double ms, cpu;             // wall, and the GUI thread's CPU
    double grow, paint, queued; // CPU of the parts: views grown (extend's signal), the repaint, queued events
};

void report(const std::vector<Refresh>& all, size_t milestone) {
    auto first =
        std::find_if(all.begin(), all.end(), [&](const Refresh& r) { return r.events >= milestone; });
    if (first == all.end()) return;
    std::vector<Refresh> some(first, std::min(all.end(), first + 20));
    auto median = [&](double Refresh::*part) {
        std::vector<double> v;
        for (const Refresh& r : some) v.push_back(r.*part);
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    double worst = 0;
    for (const Refresh& r : some) worst = std::max(worst, r.ms);
    std::printf(
        "at %9zu events: window refresh median %6.2f ms, max %6.2f ms, GUI thread CPU median %6.2f ms "
        "(%zu refreshes; GUI thread CPU parts: grow %.2f, repaint %.2f, queued events %.2f ms)\n",
        first->events, median(&Refresh::ms), worst, median(&Refresh::cpu), some.size(),
        median(&Refresh::grow), median(&Refresh::paint), median(&Refresh::queued));
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_live_window CAPTURE [EVENTS_PER_CHUNK] [MILESTONES,...]\n");
        return 2;
    }
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    const size_t perChunk = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 50000;
    std::vector<size_t> milestones;
    std::stringstream list(argc > 3 ? argv[3] : "1000000,10000000");
    for (std::string item; std::getline(list, item, ',');)
        milestones.push_back(std::strtoull(item.c_str(), nullptr, 10));
    const std::string bytes = bench::chunkedStream(argv[1], perChunk);
    const auto ends = bench::chunkEnds(bytes);
    vs::ui::MainWindow w;
    w.resize(1500, 950);
    w.show();
    vs::LiveCapture live;
    vs::ui::AnalysisPtr shown;
    std::vector<Refresh> refreshes;
    size_t fed = 0, grown = 0, reopened = 0;
    for (size_t end : ends) {
        auto a = live.append(bench::span(bytes, fed, end));
        fed = end;
        if (!a || !live.analysis().incremental()) continue; // the stream's end: one full analysis
        const double t0 = bench::now(), c0 = threadCpuMs();
        if (shown && w.session()->extend(a, shown))
            ++grown;
        else
            w.setAnalysis(QStringLiteral("live"), a), ++reopened;
        const double c1 = threadCpuMs();
        w.findChild<vs::ui::TimelinePlot*>("timeline")->replot(QCustomPlot::rpImmediateRefresh);
        const double c2 = threadCpuMs();
        QCoreApplication::processEvents();
        const double c3 = threadCpuMs();
        refreshes.push_back(
            {a->trace(0).eventCount(), (bench::now() - t0) * 1e3, c3 - c0, c1 - c0, c2 - c1, c3 - c2});
        if (qEnvironmentVariableIsSet("VS_BENCH_DETAIL") && refreshes.back().ms > 100)
            std::printf("  slow refresh at %zu events: %.1f ms wall, GUI CPU grow %.1f, repaint %.1f, queued "
                        "%.1f ms\n",
                        refreshes.back().events, refreshes.back().ms, c1 - c0, c2 - c1, c3 - c2);
        shown = std::move(a);
    }
    std::printf("%zu refreshes grew the views in place, %zu opened the snapshot whole\n", grown, reopened);
    for (size_t m : milestones) report(refreshes, m);
    w.session()->jobs().cancelAll();
    return 0;
}
