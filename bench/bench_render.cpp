// Rendering benchmark for the timeline: time from opening a file to the first painted timeline,
// and the time of one repaint (data query + draw) zoomed out and zoomed in. Offscreen; prints
// figures, asserts nothing.   QT_QPA_PLATFORM=offscreen bench_render FILE [WIDTHxHEIGHT]
#include "session/CaptureLoader.h"
#include "timeline/TimelinePlot.h"
#include "views/panels/BlockMapView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>

#include <cstdio>

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_render FILE [WIDTHxHEIGHT]\n");
        return 2;
    }
    int w = 1600, h = 600;
    if (argc > 2) std::sscanf(argv[2], "%dx%d", &w, &h);
    QElapsedTimer clock;
    clock.start();
    auto analysis = vs::ui::CaptureLoader::openNow(QString::fromLocal8Bit(argv[1]));
    const double loaded = clock.nsecsElapsed() / 1e9;
    vs::ui::TimelinePlot plot;
    plot.resize(w, h);
    plot.setAnalysis(analysis);
    QPixmap first = plot.toPixmap(w, h); // lays out, queries the pyramid, draws
    const double painted = clock.nsecsElapsed() / 1e9;
    std::printf("%s: open %.3f s, first paint at %.3f s (%zu events, %dx%d)\n", argv[1], loaded, painted,
                analysis->trace(0).eventCount(), w, h);
    auto repaint = [&](const char* label, QCPRange range) {
        plot.setVisibleRange(range, false);
        const int n = 30;
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < n; ++i) {
            // shift by a pixel each time so every repaint queries new data, as a pan does
            plot.setVisibleRange(
                QCPRange(range.lower + i * range.size() / w, range.upper + i * range.size() / w), false);
            plot.replot(QCustomPlot::rpImmediateRefresh);
        }
        std::printf("  repaint %-34s %.2f ms (%zu points drawn)\n", label, t.nsecsElapsed() / 1e6 / n,
                    plot.pointsDrawn());
    };
    const QCPRange all = plot.visibleRange();
    repaint("zoomed out (whole capture):", all);
    repaint("zoomed in (1/1000 of it):", QCPRange(all.center(), all.center() + all.size() / 1000));
    repaint("zoomed in (1/1000000 of it):", QCPRange(all.center(), all.center() + all.size() / 1e6));
    // The block map: rebuilding the state at a moment (checkpoint + replay) and painting it.
    vs::ui::BlockMapView map;
    map.resize(w, h);
    map.setAnalysis(analysis, 0);
    const size_t n = analysis->trace(0).eventCount();
    QElapsedTimer t;
    t.start();
    const int k = 20;
    for (int i = 0; i < k; ++i) map.setMoment(n / 3 + size_t(i) * (n / 50));
    const double state = t.nsecsElapsed() / 1e6 / k;
    QPixmap canvas(w, h);
    t.restart();
    for (int i = 0; i < k; ++i) map.viewport()->render(&canvas);
    std::printf("  block map: state at a moment %.2f ms, paint %.2f ms (%zu segments)\n", state,
                t.nsecsElapsed() / 1e6 / k, map.segments().size());
    return 0;
}
