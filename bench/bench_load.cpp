// Load benchmark: file -> computed summary, as vramscope does on open. Prints seconds per phase,
// events per second and peak RSS. Not a test: it asserts nothing about time.
//   bench_load FILE [REPEATS]
#include "analysis/CaptureAnalysis.h"
#include "io/CaptureFile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <sys/stat.h>

namespace {
double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_load FILE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 1;
    struct stat st {};
    stat(argv[1], &st);
    for (int r = 0; r < repeats; ++r) {
        const double t0 = now();
        auto capture = vs::loadCaptureFile(argv[1], {});
        const double t1 = now();
        size_t events = 0;
        for (const auto& d : capture->devices) events += d.eventCount();
        auto analysis = vs::CaptureAnalysis::analyse(std::move(capture));
        const auto summary = analysis->summary(0);
        const double t2 = now();
        std::printf("file %s: %.1f MB, %zu events, %zu frames, %zu stacks\n", argv[1],
                    double(st.st_size) / 1e6, events, analysis->capture().frames.size(),
                    analysis->capture().stacks.size());
        std::printf(
            "  parse %.3f s, replay %.3f s, total %.3f s, %.1f M events/s, peak RSS %.1f MB (%.2fx file)\n",
            t1 - t0, t2 - t1, t2 - t0, double(events) / (t2 - t0) / 1e6, double(peakRssKiB()) / 1024,
            double(peakRssKiB()) * 1024 / double(st.st_size));
        std::printf("  peak allocated %lld, peak reserved %lld\n",
                    static_cast<long long>(summary.peak.allocated),
                    static_cast<long long>(summary.peak.reserved));
    }
    return 0;
}
