// What the recorder's stack cache (capture/python/vramscope/_stack_cache.h) costs per allocator event
// on the program's thread: the key of a raw Python stack and the lookup of a stack already cached,
// for stacks 10, 30 and 60 frames deep (a training step's allocations are 20-60 frames deep).
//   build/bench/bench_stack_cache [ITERATIONS]
#include "_stack_cache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using vramscope_tracker::RawFrame;
using vramscope_tracker::StackCache;

double nsPer(long n, std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
}

} // namespace

int main(int argc, char** argv) {
    const long n = argc > 1 ? std::atol(argv[1]) : 2'000'000;
    static char code[64][16]; // stand-ins for code objects: distinct addresses
    std::printf("| frames | hash (ns) | find, cached (ns) | cached stacks |\n| --- | --- | --- | --- |\n");
    for (const size_t depth : {10, 30, 60}) {
        StackCache cache;
        std::vector<std::vector<RawFrame>> stacks(1000, std::vector<RawFrame>(depth));
        for (size_t s = 0; s < stacks.size(); ++s) { // 1000 call sites sharing their outer frames
            for (size_t i = 0; i < depth; ++i) stacks[s][i] = RawFrame{code[i % 64], static_cast<int>(2 * i)};
            stacks[s][0].lasti = static_cast<int>(2 * s);
            const auto at = [&v = stacks[s]](size_t i) { return v[i]; };
            cache.add(StackCache::hash(depth, at), depth, at, s);
        }
        volatile uint64_t sink = 0;
        auto t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < n; ++k) {
            const auto& v = stacks[k % stacks.size()];
            sink = sink + StackCache::hash(depth, [&v](size_t i) { return v[i]; });
        }
        const double hashNs = nsPer(n, t0);
        t0 = std::chrono::steady_clock::now();
        for (long k = 0; k < n; ++k) {
            const auto& v = stacks[k % stacks.size()];
            const auto at = [&v](size_t i) { return v[i]; };
            sink = sink + cache.find(StackCache::hash(depth, at), depth, at);
        }
        const double findNs = nsPer(n, t0) - hashNs;
        std::printf("| %zu | %.1f | %.1f | %zu |\n", depth, hashNs, findNs, cache.size());
    }
}
