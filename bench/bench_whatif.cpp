// Allocator what-if benchmark: on a loaded capture, the time to take its request stream, to simulate
// the recorded settings (with the series the GUI draws), one other configuration (figures only), and
// the 16-setting sweep on 1 and 2 threads. Prints seconds and peak figures; not a test, it asserts
// nothing about time.
//   bench_whatif FILE [REPEATS]
#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"
#include "sim/WhatIf.h"
#include "util/Format.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The least of `repeats` timings of f (the other core is shared with other work).
template <class F> double best(int repeats, F&& f) {
    double t = 1e9;
    for (int r = 0; r < repeats; ++r) {
        const double t0 = now();
        f();
        t = std::min(t, now() - t0);
    }
    return t;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_whatif FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    double t0 = now();
    const auto a = vs::openAnalysis(argv[1]);
    std::printf("load %.3f s\n", now() - t0);
    size_t d = 0;
    for (size_t i = 1; i < a->deviceCount(); ++i)
        if (a->trace(i).eventCount() > a->trace(d).eventCount()) d = i;
    vs::SimInput in;
    const double tIn = best(repeats, [&] {
        in = vs::SimInput::fromTrace(a->trace(d), a->capture().streams, a->replay(d), a->capture().settings);
    });
    std::printf("device %d: %zu events, %zu requests; request stream %.3f s\n", a->trace(d).device,
                a->trace(d).eventCount(), in.requests.size(), tIn);
    const vs::SimConfig recorded = vs::SimConfig::fromSettings(a->capture().settings);
    vs::SimResult base;
    const double tBase = best(repeats, [&] { base = vs::simulate(in, recorded, {}); });
    const auto rep = vs::compareWithRecording(base, a->replay(d));
    std::printf(
        "simulate recorded settings (series kept): %.3f s; peak reserved %s, %zu of %zu steps differ\n",
        tBase, vs::humanBytes(base.peakReserved).c_str(), rep.mismatches, rep.steps);
    vs::SimResult es;
    const double tEs = best(repeats, [&] {
        es = vs::simulate(in, recorded.with("expandable_segments:True"), {0, false});
    });
    std::printf("simulate expandable_segments:True (figures only): %.3f s; peak reserved %s\n", tEs,
                vs::humanBytes(es.peakReserved).c_str());
    const auto grid = vs::sweepGrid(recorded, false);
    for (unsigned threads : {1u, 2u}) {
        std::vector<vs::SimResult> results;
        const double t = best(1, [&] { results = vs::sweep(in, grid, 0, threads); });
        const auto top = std::min_element(results.begin(), results.end(), [](const auto& x, const auto& y) {
            return x.peakReserved < y.peakReserved;
        });
        std::printf("sweep of %zu settings on %u thread%s: %.3f s; lowest peak %s (%s)\n", grid.size(),
                    threads, threads > 1 ? "s" : "", t, vs::humanBytes(top->peakReserved).c_str(),
                    top->config.toString().c_str());
    }
    return 0;
}
