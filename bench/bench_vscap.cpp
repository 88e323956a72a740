// .vscap benchmark: encode a capture, decode it from memory (events/s), bytes per event, and the
// time to reopen the written file with analysis as vramscope does. Not a test: asserts nothing.
//   bench_vscap CAPTURE [REPEATS]
#include "analysis/CaptureAnalysis.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "load/OpenAnalysis.h"
#include "util/PrivatePath.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
size_t eventCount(const vs::Capture& c) {
    size_t n = 0;
    for (const auto& d : c.devices) n += d.eventCount();
    return n;
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_vscap CAPTURE [REPEATS]\n");
        return 2;
    }
    const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const auto capture = vs::loadCaptureFile(argv[1], {});
    const size_t events = eventCount(*capture);
    double t0 = now();
    const std::string bytes = vs::encodeVscap(*capture);
    const double encode = now() - t0;
    std::printf("%zu events: %zu bytes, %.2f B/event; encode %.3f s (%.1f M events/s)\n", events,
                bytes.size(), double(bytes.size()) / double(events), encode, double(events) / encode / 1e6);
    double best = 1e9;
    for (int r = 0; r < repeats; ++r) {
        t0 = now();
        auto back = vs::loadVscapBytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
        best = std::min(best, now() - t0);
        if (eventCount(*back) != events) return std::fprintf(stderr, "event count differs\n"), 1;
    }
    std::printf("decode best of %d: %.3f s = %.1f M events/s\n", repeats, best, double(events) / best / 1e6);
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = vs::makePrivateTempDir(tmp && *tmp ? tmp : "/tmp", "bench-vscap-"); // 0700, fresh
    const std::string path = dir + "/bench.vscap";
    vs::writeVscapFile(*capture, path);
    t0 = now();
    auto analysis = vs::openAnalysis(path);
    std::printf("reopen with analysis: %.3f s\n", now() - t0);
    std::remove(path.c_str());
    std::remove(dir.c_str());
    return 0;
}
