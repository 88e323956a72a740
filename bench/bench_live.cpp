// Live-session benchmark: a recorded capture re-encoded in small chunks (one event batch each, as a
// recorder flushing a few times a second writes them) is fed chunk by chunk, as fast as it goes,
// into the incremental path the GUI uses (LiveCapture: decode, append, continue the replay, publish
// a snapshot) plus what the timeline does with it (extend the level of detail of three series).
// The previous snapshot stays held while the next is built, as the window holds it. Prints the
// time per refresh around given event counts, and for contrast the old way (decode and analyse the
// whole prefix). Not a test: asserts nothing.
//   bench_live CAPTURE [EVENTS_PER_CHUNK=50000] [MILESTONES=1000000,10000000]
#include "LiveChunks.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/replay/TimelineLod.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "load/LiveCapture.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using bench::chunkEnds;
using bench::now;
using bench::span;

// The three timeline series of device 0, extended (or built on the first snapshot) like the view.
struct Timeline {
    std::unique_ptr<vs::TimelineLod> lod[3];
    void update(const vs::CaptureAnalysis& a) {
        const auto& t = a.trace(0);
        const auto& r = a.replay(0);
        const vs::CompactSeries* series[3] = {&r.allocated, &r.active, &r.reserved};
        for (int k = 0; k < 3; ++k) {
            if (lod[k])
                lod[k]->extend(t.timeUs, *series[k]);
            else
                lod[k] = std::make_unique<vs::TimelineLod>(t.timeUs, *series[k], 0, a.originUs());
        }
    }
};

struct Sample {
    size_t events; // after this refresh
    size_t added;
    double seconds;
    size_t streamBytes; // the stream's length after this refresh
};

void report(const std::vector<Sample>& samples, size_t milestone, const std::string& bytes) {
    size_t first = 0;
    while (first < samples.size() && samples[first].events < milestone) ++first;
    if (first == samples.size()) return;
    std::vector<double> ms;
    size_t added = 0;
    for (size_t i = first; i < std::min(samples.size(), first + 20); ++i)
        ms.push_back(samples[i].seconds * 1e3), added += samples[i].added;
    std::sort(ms.begin(), ms.end());
    const double t0 = now();
    auto whole = vs::CaptureAnalysis::analyse(vs::loadVscapBytes(span(bytes, 0, samples[first].streamBytes)));
    const double full = now() - t0;
    std::printf("at %9zu events: refresh median %6.2f ms, max %6.2f ms (%zu refreshes of %zu events); "
                "re-decoding and re-analysing everything instead: %7.1f ms\n",
                samples[first].events, ms[ms.size() / 2], ms.back(), ms.size(), added / ms.size(),
                full * 1e3);
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_live CAPTURE [EVENTS_PER_CHUNK] [MILESTONES,...]\n");
        return 2;
    }
    const size_t perChunk = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 50000;
    std::vector<size_t> milestones;
    std::stringstream list(argc > 3 ? argv[3] : "1000000,10000000");
    for (std::string item; std::getline(list, item, ',');)
        milestones.push_back(std::strtoull(item.c_str(), nullptr, 10));

    const std::string bytes = bench::chunkedStream(argv[1], perChunk);
    const auto ends = chunkEnds(bytes);
    std::printf("%zu bytes in %zu chunks of up to %zu events\n", bytes.size(), ends.size(), perChunk);
    std::fflush(stdout);

    vs::LiveCapture live;
    Timeline timeline;
    std::shared_ptr<const vs::CaptureAnalysis> shown;
    std::vector<Sample> samples;
    size_t fed = 0, events = 0;
    const double start = now();
    for (size_t k = 0; k < ends.size(); ++k) {
        const double t0 = now();
        auto a = live.append(span(bytes, fed, ends[k]));
        fed = ends[k];
        if (!a) continue;
        const bool incremental = live.analysis().incremental();
        if (incremental) timeline.update(*a);
        const double dt = now() - t0;
        const size_t n = a->trace(0).eventCount();
        if (incremental && n > events) samples.push_back({n, n - events, dt, fed});
        if (!incremental)
            std::printf("final block list arrived: one full analysis of %zu events in %.1f ms\n", n,
                        dt * 1e3);
        events = n;
        shown = std::move(a); // the window lets the previous one go when the next arrives
    }
    std::printf("fed %zu events in %.2f s (%zu snapshots kept for reuse)\n", events, now() - start,
                live.analysis().poolSize());
    double worst = 0;
    size_t worstAt = 0, slow = 0;
    for (const Sample& x : samples) {
        if (x.seconds > worst) worst = x.seconds, worstAt = x.events;
        slow += x.seconds > 0.1;
        if (std::getenv("BENCH_LIVE_SLOW") && x.seconds > 0.04)
            std::printf("  slow: %zu events, %.1f ms\n", x.events, x.seconds * 1e3);
    }
    std::printf("slowest refresh %.1f ms (at %zu events); %zu of %zu over 100 ms\n", worst * 1e3, worstAt,
                slow, samples.size());
    for (size_t m : milestones) report(samples, m, bytes);
    return 0;
}
