// Load benchmark: file -> computed summary, as vramscope does on open. Prints seconds per phase,
// events per second, peak RSS and the bytes per event the loaded capture keeps resident. Not a test:
// it asserts nothing about time.
//   bench_load FILE [REPEATS] [--python PYTHON]
// --python: also times CPython's bare pickle.load of the same (uncompressed) pickle in this run, in a
// child process, and prints how many times faster vramscope's parse is.
#include "analysis/CaptureAnalysis.h"
#include "io/CaptureFile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {
double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}
double residentMB() { // what the process holds now (after a load: the loaded capture)
    long pages = 0, resident = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1e6;
}
// Seconds CPython's pickle.load takes on `path` (in a child process), or -1.
double pythonPickleLoad(const std::string& python, const char* path) {
    const std::string cmd = python +
                            " -c 'import pickle,sys,time; f=open(sys.argv[1],\"rb\"); t=time.perf_counter(); "
                            "pickle.load(f); print(time.perf_counter()-t)' '" +
                            path + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    double seconds = -1;
    if (std::fscanf(p, "%lf", &seconds) != 1) seconds = -1;
    return pclose(p) == 0 ? seconds : -1;
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_load FILE [REPEATS] [--python PYTHON]\n");
        return 2;
    }
    std::string python;
    int repeats = 1;
    for (int i = 2; i < argc; ++i)
        if (std::string(argv[i]) == "--python" && i + 1 < argc)
            python = argv[++i];
        else
            repeats = std::atoi(argv[i]);
    double bestParse = 1e30;
    const double startMB = residentMB(); // the program and its libraries, before any load
    struct stat st {};
    stat(argv[1], &st);
    for (int r = 0; r < repeats; ++r) {
        const double t0 = now();
        auto capture = vs::loadCaptureFile(argv[1], {});
        const double t1 = now();
        bestParse = std::min(bestParse, t1 - t0);
        size_t events = 0;
        for (const auto& d : capture->devices) events += d.eventCount();
        const double heldMB = residentMB();
        double columnBytes[6] = {}; // what each event column holds, summed over devices
        for (const auto& d : capture->devices) {
            columnBytes[0] += double(d.timeUs.heapBytes()), columnBytes[1] += double(d.addr.heapBytes());
            columnBytes[2] += double(d.size.heapBytes()), columnBytes[3] += double(d.action.size());
            columnBytes[4] += double(d.stream.size() * 2), columnBytes[5] += double(d.stack.size() * 4);
        }
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
        std::printf(
            "  after parse: %.1f MB resident (%.1f bytes per event; %.1f above the %.1f MB held before "
            "loading); peak RSS per event %.1f bytes\n",
            heldMB, heldMB * 1e6 / double(events), (heldMB - startMB) * 1e6 / double(events), startMB,
            double(peakRssKiB()) * 1024 / double(events));
        const double per = events ? 1.0 / double(events) : 0;
        std::printf(
            "  columns, bytes per event: time %.2f, address %.2f, size %.2f, action %.2f, stream %.2f, "
            "stack %.2f\n",
            columnBytes[0] * per, columnBytes[1] * per, columnBytes[2] * per, columnBytes[3] * per,
            columnBytes[4] * per, columnBytes[5] * per);
        double seriesBytes = 0, checkpointBytes = 0; // what the replay keeps
        for (size_t d = 0; d < analysis->capture().devices.size(); ++d) {
            const auto& rr = analysis->replay(d);
            seriesBytes += double(rr.allocated.heapBytes() + rr.active.heapBytes() + rr.reserved.heapBytes());
            for (const auto& c : rr.checkpoints) checkpointBytes += double(c.state.heapBytes());
        }
        std::printf("  the replay keeps, bytes per event: series %.2f, checkpoints %.2f\n", seriesBytes * per,
                    checkpointBytes * per);
        std::printf("  peak allocated %lld, peak reserved %lld\n",
                    static_cast<long long>(summary.peak.allocated),
                    static_cast<long long>(summary.peak.reserved));
    }
    if (!python.empty()) {
        const double py = pythonPickleLoad(python, argv[1]);
        if (py < 0) return std::fprintf(stderr, "%s could not pickle.load %s\n", python.c_str(), argv[1]), 1;
        std::printf("CPython pickle.load %.3f s, vramscope parse %.3f s (best of %d): %.1fx faster\n", py,
                    bestParse, repeats, py / bestParse);
    }
    return 0;
}
