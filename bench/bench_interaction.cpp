// Interaction benchmark: the path a user's input takes on the real widgets, offscreen. Opens a
// capture in the main window, then sends synthesised wheel, drag, click and Shift+drag events to the
// timeline and switches tabs; each figure is the time from sending the input until the window has
// handled it, repainted the timeline and finished the background work it started (what a user waits
// for). --busy keeps another core loaded as a user's machine often is. Prints figures, asserts
// nothing.   QT_QPA_PLATFORM=offscreen bench_interaction FILE [--busy]
#include "session/CaptureLoader.h"
#include "timeline/TimelinePlot.h"
#include "window/MainWindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

namespace {

using vs::ui::MainWindow;
using vs::ui::TimelinePlot;

void mouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButtons buttons,
           Qt::KeyboardModifiers mods = {}) {
    const Qt::MouseButton button = type == QEvent::MouseMove ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent e(type, QPointF(at), w->mapToGlobal(QPointF(at)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

void wheel(QWidget* w, QPoint at) {
    QWheelEvent e(QPointF(at), w->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
                  Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

// Milliseconds until the input is handled: events delivered, background work done, timeline drawn.
double measure(MainWindow& w, const std::function<void()>& input) {
    QElapsedTimer t;
    t.start();
    input();
    const double a = t.nsecsElapsed() / 1e6;
    QCoreApplication::processEvents();
    const double b = t.nsecsElapsed() / 1e6;
    w.waitForBackgroundWork();
    const double c = t.nsecsElapsed() / 1e6;
    QCoreApplication::processEvents();
    const double d = t.nsecsElapsed() / 1e6;
    w.findChild<vs::ui::TimelinePlot*>("timeline")->replot(QCustomPlot::rpImmediateRefresh);
    if (qEnvironmentVariableIsSet("VS_BENCH_DETAIL"))
        std::printf("    input %.1f, events %.1f, background %.1f, events %.1f, replot %.1f ms\n", a, b - a,
                    c - b, d - c, t.nsecsElapsed() / 1e6 - d);
    return t.nsecsElapsed() / 1e6;
}

void report(const char* label, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    double sum = 0;
    for (double m : ms) sum += m;
    std::printf("  %-34s median %7.1f ms, worst %7.1f ms (%zu inputs)\n", label, ms[ms.size() / 2], ms.back(),
                ms.size());
}

} // namespace

int main(int argc, char** argv) {
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_interaction FILE [--busy]\n");
        return 2;
    }
    const bool busy = argc > 2 && std::string(argv[2]) == "--busy";
    std::atomic<bool> stop{false};
    std::thread burner;
    if (busy)
        burner = std::thread([&] {
            volatile unsigned long x = 0;
            while (!stop.load(std::memory_order_relaxed)) x = x + 1;
        });
    MainWindow w;
    w.resize(1600, 1000);
    w.show();
    QElapsedTimer open;
    open.start();
    auto analysis = vs::ui::CaptureLoader::openNow(QString::fromLocal8Bit(argv[1]));
    w.setAnalysis(QString::fromLocal8Bit(argv[1]), analysis);
    w.waitForBackgroundWork();
    QCoreApplication::processEvents();
    size_t events = 0;
    for (size_t d = 0; d < analysis->deviceCount(); ++d) events += analysis->trace(d).eventCount();
    std::printf("%s: %zu events, open until idle %.2f s%s\n", argv[1], events, open.nsecsElapsed() / 1e9,
                busy ? " (another core busy)" : "");
    TimelinePlot* plot = w.findChild<vs::ui::TimelinePlot*>("timeline");
    if (qEnvironmentVariableIsSet("VS_BENCH_DETAIL")) {
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < 5; ++i) plot->replot(QCustomPlot::rpImmediateRefresh);
        std::printf("  timeline replot in the window: %.1f ms (%dx%d)\n", t.nsecsElapsed() / 5e6,
                    plot->width(), plot->height());
        t.restart();
        for (int i = 0; i < 5; ++i) plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  timeline replot, queued refresh: %.1f ms\n", t.nsecsElapsed() / 5e6);
        plot->setFragmentationVisible(false);
        t.restart();
        for (int i = 0; i < 5; ++i) plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  timeline replot without fragmentation: %.1f ms\n", t.nsecsElapsed() / 5e6);
        plot->setFragmentationVisible(true);
        for (int i = 0; i < plot->itemCount(); ++i) plot->item(i)->setVisible(false);
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  without %d items: %.1f ms\n", plot->itemCount(), t.nsecsElapsed() / 1e6);
        for (int i = 0; i < plot->itemCount(); ++i) plot->item(i)->setVisible(true);
        for (int i = 0; i < plot->graphCount(); ++i) plot->graph(i)->setVisible(false);
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  no graphs: %.1f ms\n", t.nsecsElapsed() / 1e6);
        for (int i = 0; i < plot->graphCount(); ++i) {
            plot->graph(i)->setVisible(true);
            t.restart();
            plot->replot(QCustomPlot::rpQueuedRefresh);
            std::printf("  only graph %d (%s, %d points, brush %d, pen %d): %.1f ms\n", i,
                        qPrintable(plot->graph(i)->name()), plot->graph(i)->dataCount(),
                        int(plot->graph(i)->brush().style()), int(plot->graph(i)->pen().style()),
                        t.nsecsElapsed() / 1e6);
            plot->graph(i)->setVisible(false);
        }
        for (int i = 0; i < plot->graphCount(); ++i) plot->graph(i)->setVisible(true);
        for (auto el : {QCP::aeFills, QCP::aePlottables, QCP::aeAll}) {
            plot->setNotAntialiasedElements(el);
            t.restart();
            plot->replot(QCustomPlot::rpQueuedRefresh);
            std::printf("  not antialiased %d: %.1f ms\n", int(el), t.nsecsElapsed() / 1e6);
        }
        plot->setNotAntialiasedElements(QCP::aeNone);
        for (int i = 0; i < plot->graphCount(); ++i) {
            QPen p = plot->graph(i)->pen();
            if (p.style() == Qt::SolidLine) p.setWidthF(1), p.setCosmetic(true);
            plot->graph(i)->setPen(p);
        }
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  cosmetic 1 px pens: %.1f ms\n", t.nsecsElapsed() / 1e6);
        for (int i = 0; i < plot->graphCount(); ++i) {
            QPen p = plot->graph(i)->pen();
            if (p.style() == Qt::DashLine) p.setStyle(Qt::SolidLine), p.setCosmetic(true);
            plot->graph(i)->setPen(p);
        }
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  and no dashes: %.1f ms\n", t.nsecsElapsed() / 1e6);
        plot->setNotAntialiasedElements(QCP::aeFills);
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  and fills not antialiased: %.1f ms\n", t.nsecsElapsed() / 1e6);
        for (int i = 0; i < plot->graphCount(); ++i) plot->graph(i)->setBrush(Qt::NoBrush);
        t.restart();
        plot->replot(QCustomPlot::rpQueuedRefresh);
        std::printf("  and no fills: %.1f ms\n", t.nsecsElapsed() / 1e6);
        for (int l = 0; l < plot->layerCount(); ++l) {
            QCPLayer* layer = plot->layer(l);
            t.restart();
            layer->replot();
            std::printf("    layer %s: %zu children, %.1f ms\n", qPrintable(layer->name()),
                        size_t(layer->children().size()), t.nsecsElapsed() / 1e6);
        }
        t.restart();
        for (int i = 0; i < 5; ++i) (void)w.grab();
        std::printf("  whole window grab: %.1f ms\n", t.nsecsElapsed() / 5e6);
    }
    const QRect area = plot->axisRect(0)->rect();
    const int y = area.center().y();
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) ms.push_back(measure(w, [&] { wheel(plot, QPoint(area.center().x(), y)); }));
    report("wheel zoom (one notch)", ms);
    ms.clear();
    for (int i = 0; i < 3; ++i)
        ms.push_back(measure(w, [&] {
            const int x = area.center().x();
            mouse(plot, QEvent::MouseButtonPress, {x, y}, Qt::LeftButton);
            for (int k = 1; k <= 4; ++k) mouse(plot, QEvent::MouseMove, {x - 50 * k, y}, Qt::LeftButton);
            mouse(plot, QEvent::MouseButtonRelease, {x - 200, y}, Qt::NoButton);
        }));
    report("pan drag", ms);
    plot->fitAll();
    measure(w, [] {});
    ms.clear();
    for (int i = 0; i < 3; ++i)
        ms.push_back(measure(w, [&] {
            mouse(plot, QEvent::MouseButtonPress, {area.left() + 2, y}, Qt::LeftButton, Qt::ShiftModifier);
            for (int x = area.left() + 100; x < area.right(); x += 200)
                mouse(plot, QEvent::MouseMove, {x, y}, Qt::LeftButton, Qt::ShiftModifier);
            mouse(plot, QEvent::MouseButtonRelease, {area.right() - 2, y}, Qt::NoButton, Qt::ShiftModifier);
        }));
    report("full-width range (survivors)", ms);
    ms.clear();
    for (int i = 1; i <= 5; ++i)
        ms.push_back(measure(w, [&] {
            const QPoint at(area.left() + area.width() * i / 6, y);
            mouse(plot, QEvent::MouseButtonPress, at, Qt::LeftButton);
            mouse(plot, QEvent::MouseButtonRelease, at, Qt::NoButton);
        }));
    report("click (region or event)", ms);
    ms.clear();
    for (int i = 0; i < 2; ++i) {
        ms.push_back(measure(w, [&] { w.showBlockMapTab(); }));
        ms.push_back(measure(w, [&] { w.showRetentionTab(); }));
        ms.push_back(measure(w, [&] { w.showLeaksTab(); }));
    }
    report("tab switch", ms);
    stop = true;
    if (burner.joinable()) burner.join();
    return 0;
}
