// The "Allocation bands" view (memory_viz's Active Memory Timeline): the time to lay the bands out
// (background), one repaint (offscreen, panned by a pixel each time, as a drag does) zoomed out
// and zoomed in, and a hover (the band under a point, with its tooltip text). Prints figures, asserts
// nothing.   QT_QPA_PLATFORM=offscreen bench_bands FILE [WxH]
#include "session/CaptureLoader.h"
#include "views/timeline/AllocationBandsView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPixmap>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_bands FILE [WIDTHxHEIGHT]\n");
        return 2;
    }
    int w = 1600, h = 600;
    if (argc > 2) std::sscanf(argv[2], "%dx%d", &w, &h);
    auto analysis = vs::ui::CaptureLoader::openNow(QString::fromLocal8Bit(argv[1]));
    size_t device = 0; // the longest trace, as the window shows first
    for (size_t d = 1; d < analysis->deviceCount(); ++d)
        if (analysis->trace(d).eventCount() > analysis->trace(device).eventCount()) device = d;
    QElapsedTimer clock;
    clock.start();
    auto layout = vs::ui::AllocationBandsView::compute(analysis, device);
    std::printf("%s: %zu events, layout %.1f ms (%zu allocations: %zu bands, %zu steps, %zu summarized)\n",
                argv[1], analysis->trace(device).eventCount(), clock.nsecsElapsed() / 1e6,
                layout.bands->allocationCount(), layout.bands->bands().size(), layout.bands->stepCount(),
                layout.bands->summarizedCount());
    vs::ui::AllocationBandsView view;
    view.resize(w, h);
    view.setLayout(analysis, device, layout);
    const auto [from, to] = view.timeRange();
    QPixmap canvas(w, h);
    auto repaint = [&](const char* label, double span) {
        const double start = (from + to) / 2 - span / 2;
        const int n = 30;
        std::vector<double> ms;
        for (int i = 0; i < n; ++i) {
            const double shift = i * span / w; // a pixel each time: every repaint draws new data
            view.setTimeRange(start + shift, start + span + shift);
            QElapsedTimer t;
            t.start();
            view.render(&canvas);
            ms.push_back(t.nsecsElapsed() / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("  repaint %-30s median %.2f ms, max %.2f ms (%zu bands drawn)\n", label, ms[n / 2],
                    ms.back(), view.bandsDrawn());
    };
    // Hover and click: the band under the mouse (the tooltip's text when one is there) at points
    // spread over the whole view, as a mouse sweeping across it asks.
    auto hover = [&](const char* label) {
        const QRect plot = view.plotRect();
        std::vector<double> ms;
        size_t hits = 0;
        for (int i = 0; i < 200; ++i) {
            const QPoint at(plot.left() + (i * 37) % plot.width(), plot.top() + (i * 53) % plot.height());
            QElapsedTimer t;
            t.start();
            if (const auto band = view.bandAt(at)) hits += !view.describe(*band).isEmpty();
            ms.push_back(t.nsecsElapsed() / 1e6);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("  hover/click %-26s median %.3f ms, max %.3f ms (%zu of 200 points on a band)\n", label,
                    ms[ms.size() / 2], ms.back(), hits);
    };
    view.setTimeRange(from, to);
    hover("(whole capture):");
    repaint("zoomed out (whole capture):", to - from);
    repaint("zoomed in (1/1000 of it):", (to - from) / 1000);
    repaint("zoomed in (1/1000000 of it):", (to - from) / 1e6);
    return 0;
}
