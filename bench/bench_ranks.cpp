// Ranks from summaries (prints figures, asserts nothing about time): RANKS synthetic rank summaries
// (.vsrank, as `vramscope-cli summarize` writes them: a 2048-slice profile, STEPS iterations, a few
// leaking ranks) written into a temporary folder, then opened in the real Ranks window (offscreen):
//  1. open: File → Open Ranks Folder… until the window has shown them: the summaries read on every
//     core, the statistics, the table model (sorted by rank through its proxy) and the heatmap's
//     scale, and the first paint of the whole window (grab); peak RSS of that stage;
//  2. the parts: loadRanks alone, and the table model and heatmap given the loaded set;
//  3. the heatmap widget's paint (render() into a QImage, the real paintEvent: cells, labels, axis,
//     colour bar) at the window's size: median and highest of REPAINTS, over the whole run, zoomed
//     16x, and aligned by step; of the same view, and zoomed by a pixel before each (drawn anew).
// The files are in the page cache (just written): on a cluster's file system the first read of each
// costs its latency more.
//   bench_ranks [RANKS] [STEPS] [REPAINTS]    (QT_QPA_PLATFORM=offscreen)
//   bench_ranks --write DIR RANKS STEPS       only writes the summaries into DIR (to look at them)
#include "compare/RankSet.h"
#include "compare/RankSummaryFile.h"
#include "models/RankTableModel.h"
#include "views/ranks/RankHeatmap.h"
#include "views/ranks/RanksWindow.h"

#include <QApplication>
#include <QEventLoop>
#include <QImage>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double rssMiB(const char* key) { // VmHWM (peak since the last reset) or VmRSS
    std::ifstream s("/proc/self/status");
    for (std::string line; std::getline(s, line);)
        if (line.rfind(key, 0) == 0) return std::atof(line.c_str() + std::strlen(key)) / 1024;
    return 0;
}
void resetPeakRss() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

// One rank of a data-parallel job: the model's memory, then a sawtooth per step (activations made
// and freed) with noise at 4 KiB; every 97th rank leaks 8 MiB a step.
vs::RankSummary syntheticRank(int rank, size_t steps) {
    std::mt19937_64 rng(uint64_t(rank) * 7919 + 1);
    vs::RankSummary r;
    r.rank = rank, r.device = rank % 8, r.events = 1'000'000 + rng() % 1000;
    r.firstUs = 1'700'000'000'000'000 + int64_t(rng() % 2'000'000),
    r.lastUs = r.firstUs + 600'000'000 + int64_t(rng() % 5'000'000);
    const int64_t model = int64_t(12) << 30, act = int64_t(20) << 30,
                  leak = rank % 97 == 5 ? int64_t(8) << 20 : 0;
    const auto noise = [&] { return int64_t(rng() % 4096) << 12; };
    r.iterations = steps, r.marker = "ProfilerStep#";
    for (size_t k = 0; k < steps; ++k) {
        r.stepUs.push_back(r.firstUs + int64_t(k) * (r.lastUs - r.firstUs) / int64_t(steps));
        r.stepPeak.push_back(model + act + leak * int64_t(k) + noise());
        r.stepPeakReserved.push_back(model + act + (int64_t(2) << 30) + leak * int64_t(k));
    }
    for (size_t b = 0; b < vs::RankSummary::kBins; ++b) {
        const size_t k = b * steps / vs::RankSummary::kBins;
        const double phase = double(b * steps % vs::RankSummary::kBins) / vs::RankSummary::kBins;
        r.binAllocated.push_back(model + int64_t(double(act) * phase) + leak * int64_t(k) + noise());
        r.binReserved.push_back(r.stepPeakReserved[k]);
    }
    r.peakAllocated = *std::max_element(r.binAllocated.begin(), r.binAllocated.end());
    r.peakReserved = *std::max_element(r.binReserved.begin(), r.binReserved.end());
    r.finalAllocated = model + leak * int64_t(steps), r.finalReserved = r.binReserved.back();
    r.growth = leak * int64_t(steps - 2);
    return r;
}

// Writes the summaries (plain writes: the bench's set-up, not what it measures); returns the bytes.
uint64_t writeSummaries(const QString& dir, int ranks, size_t steps) {
    uint64_t bytes = 0;
    for (int k = 0; k < ranks; ++k) {
        vs::SourceStamp src{"/lustre/job/trace_rank" + std::to_string(k) + ".pickle", 400u << 20, 0};
        const std::string file = vs::encodeRankSummary(syntheticRank(k, steps), src);
        std::ofstream(dir.toStdString() + "/trace_rank" + std::to_string(k) + ".pickle.vsrank",
                      std::ios::binary)
            << file;
        bytes += file.size();
    }
    return bytes;
}

double cpuNow() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// The heatmap widget's paint into an image (its paintEvent), REPAINTS times, each after a zoom by a
// pixel when `moving` (the cells drawn anew, as while dragging or zooming), else of the same view
// (the cells kept, as for an expose or a tooltip): "median M ms, max X, cpu C ms" (C: the CPU time of
// both threads per paint; on a loaded machine the wall time waits for cores, the CPU time does not).
std::string paints(vs::ui::RankHeatmap& h, int repaints, bool moving) {
    QImage img(h.size(), QImage::Format_RGB32);
    h.render(&img);
    std::vector<double> ms;
    const double c0 = cpuNow();
    for (int i = 0; i < repaints; ++i) {
        if (moving) { // in by a pixel at each side, then out again: a new view every time
            const auto [from, to] = h.view();
            const double px = (to - from) / std::max(1, h.width() - 74) * (i % 2 ? -1 : 1);
            h.setView(from + px, to - px);
        }
        const double t0 = now();
        h.render(&img);
        ms.push_back(1e3 * (now() - t0));
    }
    const double cpu = 1e3 * (cpuNow() - c0) / repaints;
    std::sort(ms.begin(), ms.end());
    char text[96];
    std::snprintf(text, sizeof text, "median %.1f ms, max %.1f, cpu %.1f ms", ms[ms.size() / 2], ms.back(),
                  cpu);
    return text;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 5 && std::strcmp(argv[1], "--write") == 0)
        return writeSummaries(argv[2], std::atoi(argv[3]), size_t(std::atoi(argv[4]))) ? 0 : 1;
    QApplication app(argc, argv);
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 4096;
    const size_t steps = argc > 2 ? size_t(std::atoi(argv[2])) : 500;
    const int repaints = argc > 3 ? std::atoi(argv[3]) : 50;
    QTemporaryDir dir;
    double t0 = now();
    const uint64_t bytes = writeSummaries(dir.path(), ranks, steps);
    std::printf(
        "cores: %u; %d summaries of %zu steps written: %.1f KB each (%.1f ms each to make and encode)\n",
        std::thread::hardware_concurrency(), ranks, steps, double(bytes) / ranks / 1e3,
        1e3 * (now() - t0) / ranks);

    vs::ui::RanksWindow w;
    w.resize(1200, 860);
    w.show();
    app.processEvents();
    const double before = rssMiB("VmRSS:");
    resetPeakRss();
    QEventLoop wait;
    QObject::connect(&w, &vs::ui::RanksWindow::loaded, &wait, &QEventLoop::quit);
    QTimer::singleShot(600000, &wait, &QEventLoop::quit);
    t0 = now();
    w.open({dir.path()});
    wait.exec();
    if (!w.ranks())
        return std::fprintf(stderr, "the window did not load: %s\n", qPrintable(w.errorText())), 1;
    const double shown = now() - t0;
    (void)w.grab(); // the first paint of the whole window: heatmap, table, labels
    std::printf("open in the Ranks window: %d ranks shown in %.2f s (until loaded %.2f s); peak RSS %.0f MiB "
                "(%.0f MiB before, %.0f MiB after); %zu outliers\n",
                ranks, now() - t0, shown, rssMiB("VmHWM:"), before, rssMiB("VmRSS:"),
                w.ranks()->outliers.size());

    t0 = now();
    auto set =
        std::make_shared<const vs::RankSet>(vs::loadRanks(vs::rankFiles(dir.path().toStdString()).files));
    const double load = now() - t0;
    t0 = now();
    vs::ui::RankTableModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(vs::ui::RankTableModel::kSortRole);
    proxy.sort(vs::ui::RankTableModel::Rank);
    model.setRanks(set);
    const double table = now() - t0;
    t0 = now();
    vs::ui::RankHeatmap scale;
    scale.setRanks(set);
    std::printf("parts: loadRanks %.2f s, table model (sorted) %.0f ms, heatmap data %.0f ms\n", load,
                1e3 * table, 1e3 * (now() - t0));

    vs::ui::RankHeatmap& h = *w.heatmap();
    std::printf("heatmap paint, %d x %d widget, %d ranks, %d repaints:\n", h.width(), h.height(), ranks,
                repaints);
    for (bool moving : {false, true}) {
        h.setAlignBySteps(false);
        h.fitAll();
        std::printf("  %s: whole run %s",
                    moving ? "zoomed by a pixel before each (cells drawn anew)" : "same view (cells kept)",
                    paints(h, repaints, moving).c_str());
        const auto [from, to] = h.view();
        h.setView(from + (to - from) * 0.4, from + (to - from) * (0.4 + 1.0 / 16));
        std::printf("; zoomed 16x %s", paints(h, repaints, moving).c_str());
        h.setAlignBySteps(true);
        std::printf("; aligned by step %s\n", paints(h, repaints, moving).c_str());
    }
    return 0;
}
