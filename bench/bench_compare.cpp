// Comparison benchmark (prints figures, asserts nothing about time):
//  1. many ranks: RANKS links to one snapshot named rank0..rankN-1 in a temporary folder, read and
//     summarised by loadRanks on every core (what File > Open Ranks and `vramscope-cli ranks` do):
//     wall time and peak RSS of that stage;
//  2. the rank heatmap: one repaint of its cells at 1600 x 1000 over the whole run, zoomed 16x, and
//     aligned by step (mean of 20); and with 1024 ranks (the summaries repeated);
//  3. compare of two captures (what File > Compare With and `vramscope-cli compare` do): load both,
//     then compareCaptures; peak RSS of that stage.
//   bench_compare RANK_SNAPSHOT A B [RANKS]    (QT_QPA_PLATFORM=offscreen)
#include "compare/CaptureDiff.h"
#include "compare/RankSet.h"
#include "load/OpenAnalysis.h"
#include "views/ranks/RankHeatmap.h"

#include <QApplication>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Peak resident set since the last reset, in MiB (VmHWM; writing 5 to clear_refs resets it).
double peakRssMiB() {
    std::ifstream s("/proc/self/status");
    for (std::string line; std::getline(s, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024;
    return 0;
}
void resetPeakRss() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

double cpuNow() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// "W ms (cpu C ms)": mean wall time of a repaint and the CPU time it took on all threads together;
// on a loaded machine the wall time waits for cores, the CPU time does not.
std::string meanRender(const vs::ui::RankHeatmap& h, int repeats) {
    const double t0 = now(), c0 = cpuNow();
    for (int i = 0; i < repeats; ++i) (void)h.renderCells(QSize(1600, 1000));
    char text[64];
    std::snprintf(text, sizeof text, "%.1f ms (cpu %.1f ms)", 1e3 * (now() - t0) / repeats,
                  1e3 * (cpuNow() - c0) / repeats);
    return text;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: bench_compare RANK_SNAPSHOT A B [RANKS]\n");
        return 2;
    }
    QApplication app(argc, argv);
    const int ranks = argc > 4 ? std::atoi(argv[4]) : 64;
    QTemporaryDir dir;
    std::vector<std::string> files;
    for (int r = 0; r < ranks; ++r) {
        files.push_back(dir.filePath(QString("rank%1.pickle").arg(r)).toStdString());
        std::filesystem::create_symlink(std::filesystem::absolute(argv[1]), files.back());
    }
    std::printf("cores: %u\n", std::thread::hardware_concurrency());

    resetPeakRss();
    const double base = peakRssMiB();
    double t0 = now();
    auto set = std::make_shared<const vs::RankSet>(vs::loadRanks(files));
    size_t events = 0;
    for (const auto& r : set->ranks) events += r.events;
    std::printf(
        "ranks: %d x %zu events (%.1f M in all) read and summarised in %.2f s (%.2f s per rank per core); "
        "peak RSS %.0f MiB (%.0f MiB before), %zu outliers\n",
        ranks, set->ranks.front().events, double(events) / 1e6, now() - t0,
        (now() - t0) * std::thread::hardware_concurrency() / ranks, peakRssMiB(), base, set->outliers.size());

    vs::ui::RankHeatmap h;
    h.resize(1600 + 74, 1000 + 46);
    h.setRanks(set);
    std::printf("heatmap repaint (1600 x 1000 cells, %d ranks): whole run %s", ranks,
                meanRender(h, 20).c_str());
    const auto [from, to] = h.view();
    h.setView(from + (to - from) * 0.4, from + (to - from) * (0.4 + 1.0 / 16));
    std::printf(", zoomed 16x %s", meanRender(h, 20).c_str());
    h.setAlignBySteps(true);
    std::printf(", aligned by step %s\n", meanRender(h, 20).c_str());
    // designed for 1024 ranks: the same summaries repeated (the repaint does not depend on the data)
    auto many = std::make_shared<vs::RankSet>();
    for (int r = 0; r < 1024; ++r)
        many->ranks.push_back(set->ranks[size_t(r) % set->ranks.size()]), many->ranks.back().rank = r;
    vs::finishRankSet(*many);
    h.setRanks(many);
    h.setAlignBySteps(false);
    std::printf("heatmap repaint (1600 x 1000 cells, 1024 ranks): whole run %s", meanRender(h, 20).c_str());
    h.setAlignBySteps(true);
    std::printf(", aligned by step %s\n", meanRender(h, 20).c_str());

    resetPeakRss();
    t0 = now();
    const auto a = vs::openAnalysis(argv[2]);
    const auto b = vs::openAnalysis(argv[3]);
    const double loaded = now() - t0;
    t0 = now();
    const vs::CaptureDiff d = vs::compareCaptures(vs::wholeDevice(*a, vs::longestDevice(*a)),
                                                  vs::wholeDevice(*b, vs::longestDevice(*b)));
    std::printf("compare: A %zu events, B %zu events: load both %.2f s, compare %.2f s; peak RSS %.0f MiB; "
                "%zu sites and %zu stacks differ, %zu iterations aligned\n",
                a->trace(vs::longestDevice(*a)).eventCount(), b->trace(vs::longestDevice(*b)).eventCount(),
                loaded, now() - t0, peakRssMiB(), d.sites.size(), d.stacks.size(), d.iterations.pairs.size());
    return 0;
}
