// Scale benchmark of issue 31 (what runs after the reader): a capture of 10^6 segments (each
// cudaMalloc'd for one allocation: every per-event segment lookup must be sub-linear), read from
// .vscap, replayed, summarised and simulated; and two captures of 10^6 allocations under 10^6
// distinct deep stacks, compared. Each part runs in a child process of its own, whose peak RSS
// (wait4) is reported with its times; the captures are built in memory, the part's input encoded to
// .vscap before its clock starts. Each step prints its wall and CPU time (the CPU time moves less on
// a machine busy with other work) and the resident set after it; the peak of the steps from the
// .vscap on (the peak reset through /proc/self/clear_refs once the input is made) is printed apart
// from the whole child's. Prints figures; asserts nothing (the goal: <= 10 s, <= 1.5 GB each).
//   bench_scale [SEGMENTS] [STACKS] [DEPTH]      (defaults 1000000 1000000 32; 0 skips a part)
#include "analysis/CaptureAnalysis.h"
#include "compare/CaptureDiff.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "sim/Simulate.h"
#include "util/Format.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace vs;

namespace {

constexpr int64_t kEpochUs = 1700000000000000;
constexpr uint64_t kBase = 1ull << 40;

double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpuNow() {
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// A line of /proc/self/status in MiB ("VmRSS", "VmHWM"); 0 where there is none.
double statusMiB(const char* key) {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    char line[256];
    double kib = 0;
    const size_t n = std::strlen(key);
    while (f && std::fgets(line, sizeof line, f))
        if (std::strncmp(line, key, n) == 0 && line[n] == ':') kib = std::atof(line + n + 1);
    if (f) std::fclose(f);
    return kib / 1024;
}

// Starts the peak RSS (VmHWM) again from the resident set now.
void resetPeak() {
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) std::fputs("5", f), std::fclose(f);
}

// Times the steps of a part: each step() prints its wall and CPU seconds since the one before.
struct Steps {
    double wall = now(), cpu = cpuNow(), wall0 = wall, cpu0 = cpu;
    void step(const char* what) {
        const double w = now(), c = cpuNow();
        std::printf("  %-34s %6.2f s (CPU %5.2f s), resident %4.0f MiB\n", what, w - wall, c - cpu,
                    statusMiB("VmRSS"));
        wall = w, cpu = c;
    }
    void total(const char* what) const {
        std::printf("  %-34s %6.2f s (CPU %5.2f s), peak RSS %4.0f MiB\n", what, now() - wall0,
                    cpuNow() - cpu0, statusMiB("VmHWM"));
    }
};

void push(DeviceTrace& t, Action a, uint64_t addr, uint64_t size, int64_t time, StreamId stream,
          StackId stack) {
    t.timeUs.push_back(time), t.action.push_back(a), t.addr.push_back(addr), t.size.push_back(size);
    t.stream.push_back(stream), t.stack.push_back(stack);
}

// `n` segments of 2 MiB, each cudaMalloc'd for one allocation of 512 B that is still alive.
std::unique_ptr<Capture> manySegments(uint32_t n) {
    auto c = std::make_unique<Capture>();
    const StreamId stream = c->internStream(0);
    DeviceTrace& t = c->devices.emplace_back();
    const uint64_t seg = 2ull << 20;
    for (uint32_t i = 0; i < n; ++i) {
        push(t, Action::SegmentAlloc, kBase + i * seg, seg, kEpochUs + 2 * i, stream, StackId{});
        push(t, Action::Alloc, kBase + i * seg, 512, kEpochUs + 2 * i + 1, stream, StackId{});
        SnapshotSegment s;
        s.address = kBase + i * seg, s.totalSize = seg, s.smallPool = true;
        s.blocks.push_back({kBase + i * seg, 512, 512, BlockState::ActiveAllocated, StackId{}});
        s.blocks.push_back({kBase + i * seg + 512, seg - 512, 0, BlockState::Inactive, StackId{}});
        t.finalSegments.push_back(std::move(s));
    }
    return c;
}

// `n` allocations of `size` bytes in one segment, each under a stack of its own: a distinct leaf
// ("<leaf><i>") under a recursion `depth` - 1 frames deep shared by all.
std::unique_ptr<Capture> distinctStacks(uint32_t n, uint32_t depth, uint64_t size) {
    auto c = std::make_unique<Capture>();
    const StreamId stream = c->internStream(0);
    const StringId file = c->strings.intern("/home/u/model.py"), recurse = c->strings.intern("recurse");
    std::vector<FrameId> frames(depth);
    for (uint32_t k = 1; k < depth; ++k) frames[k] = c->frames.intern({recurse, file, 10 + k});
    DeviceTrace& t = c->devices.emplace_back();
    const uint64_t total = (uint64_t(n) * size + (2ull << 20) - 1) / (2ull << 20) * (2ull << 20);
    push(t, Action::SegmentAlloc, kBase, total, kEpochUs, stream, StackId{});
    SnapshotSegment s;
    s.address = kBase, s.totalSize = total;
    for (uint32_t i = 0; i < n; ++i) {
        frames[0] = c->frames.intern({c->strings.intern("leaf" + std::to_string(i)), file, 1000 + i});
        push(t, Action::Alloc, kBase + i * size, size, kEpochUs + 1 + i, stream, c->stacks.intern(frames));
        s.blocks.push_back({kBase + i * size, size, size, BlockState::ActiveAllocated, StackId{}});
    }
    if (uint64_t(n) * size < total)
        s.blocks.push_back({kBase + n * size, total - n * size, 0, BlockState::Inactive, StackId{}});
    t.finalSegments.push_back(std::move(s));
    return c;
}

std::shared_ptr<const CaptureAnalysis> open(const std::string& vscap) {
    return CaptureAnalysis::analyse(
        loadCaptureBytes({reinterpret_cast<const uint8_t*>(vscap.data()), vscap.size()}, {}));
}

// Runs `part` in a child and prints its peak RSS (what the child's own work took: the parent holds
// nothing when it forks).
void measured(const char* name, const std::function<void()>& part) {
    std::fflush(stdout);
    const double t0 = now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        part();
        std::fflush(stdout);
        ::_exit(0);
    }
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    const double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                       double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    std::printf("%s: %.2f s in all (CPU %.2f s; making the input included), peak RSS %.0f MiB%s\n\n", name,
                now() - t0, cpu, double(ru.ru_maxrss) / 1024,
                WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "" : " (FAILED)");
}

} // namespace

int main(int argc, char** argv) {
    const uint32_t segments = argc > 1 ? uint32_t(std::atol(argv[1])) : 1000000;
    const uint32_t stacks = argc > 2 ? uint32_t(std::atol(argv[2])) : 1000000;
    const uint32_t depth = argc > 3 ? uint32_t(std::atol(argv[3])) : 32;

    if (segments)
        measured("segments", [&] {
            const std::string file = encodeVscap(*manySegments(segments));
            std::printf("%u segments: .vscap of %.1f MB\n", segments, double(file.size()) / 1e6);
            resetPeak();
            Steps t;
            const auto a = open(file);
            t.step("read + replay");
            const DeviceSummary s = a->summary(0);
            const auto state = a->stateAt(0, INT64_MAX);
            t.step("summary + state at the end");
            const SimInput in =
                SimInput::fromTrace(a->trace(0), a->capture().streams, a->replay(0), a->capture().settings);
            const SimResult r =
                simulate(in, SimConfig{}.with("expandable_segments:True"), {0, false, nullptr});
            t.step("what-if expandable_segments");
            t.total("from the .vscap on");
            std::printf("  (%zu segments, reserved %s, exact: %s; what-if peak reserved %s)\n", state.size(),
                        humanBytes(s.final.reserved).c_str(),
                        a->replay(0).finalMatchesSnapshot ? "yes" : "no", humanBytes(r.peakReserved).c_str());
        });
    if (stacks)
        measured("distinct stacks", [&] {
            const std::string fa = encodeVscap(*distinctStacks(stacks, depth, 512));
            const std::string fb = encodeVscap(*distinctStacks(stacks, depth, 1024));
            std::printf("%u distinct stacks of %u frames, twice: .vscap of %.1f + %.1f MB\n", stacks, depth,
                        double(fa.size()) / 1e6, double(fb.size()) / 1e6);
            resetPeak();
            Steps t;
            const auto a = open(fa), b = open(fb);
            t.step("read + replay both");
            const CaptureDiff d = compareCaptures(wholeDevice(*a, 0), wholeDevice(*b, 0));
            t.step("compare");
            t.total("from the .vscaps on");
            std::printf("  (%zu stack rows, %zu site rows)\n", d.stacks.size(), d.sites.size());
        });
    return 0;
}
