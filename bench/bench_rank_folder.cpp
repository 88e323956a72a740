// A folder of many small rank summaries read by `vramscope-cli ranks` (prints figures, asserts nothing
// about time): writes RANKS summaries of one KIND into DIR, to be timed with /usr/bin/time -v:
//   bench_rank_folder DIR RANKS KIND
//   /usr/bin/time -v vramscope-cli ranks DIR --max-memory 512M > /dev/null
// KIND:
//   small     a short run's summary as `summarize` writes it (10 events, 3 iterations: ~150 bytes)
//   inflated  the most a file of a few hundred bytes may hold: 4096 step slots, 2048 slices, a path
//             and an iteration marker of 4 KiB (64 KiB each before issue 47), all alike so that zstd
//             makes them nothing
// (issue 47: 20,000 such files took 20 s and 6.4 GB, ignoring --max-memory 512M).
#include "compare/RankSummaryFile.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

vs::RankSummary smallRank(int rank) {
    vs::RankSummary r;
    r.rank = rank, r.events = 10, r.firstUs = 1'000'000, r.lastUs = 2'000'000;
    r.peakAllocated = r.peakReserved = 4 << 20, r.finalAllocated = r.finalReserved = 2 << 20;
    r.marker = "ProfilerStep#", r.iterations = 3;
    for (int64_t k = 0; k < 3; ++k)
        r.stepUs.push_back(r.firstUs + k * 300'000), r.stepPeak.push_back(4 << 20),
            r.stepPeakReserved.push_back(4 << 20);
    r.binAllocated.assign(vs::RankSummary::kBins, 2 << 20);
    r.binReserved.assign(vs::RankSummary::kBins, 4 << 20);
    return r;
}

vs::RankSummary inflatedRank(int rank) {
    vs::RankSummary r = smallRank(rank);
    r.events = 1 << 20, r.iterations = vs::RankSummary::kMaxSlots;
    r.stepUs.assign(r.iterations, r.firstUs), r.stepPeak.assign(r.iterations, 4 << 20);
    r.stepPeakReserved.assign(r.iterations, 4 << 20);
    r.marker.assign(64 << 10, 'x');
    return r;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 4 || (std::strcmp(argv[3], "small") != 0 && std::strcmp(argv[3], "inflated") != 0))
        return std::fprintf(stderr, "usage: bench_rank_folder DIR RANKS small|inflated\n"), 2;
    const std::string dir = argv[1];
    const int ranks = std::atoi(argv[2]);
    const bool inflated = std::strcmp(argv[3], "inflated") == 0;
    std::filesystem::create_directories(dir);
    uint64_t bytes = 0;
    for (int k = 0; k < ranks; ++k) {
        const std::string capture = "trace_rank" + std::to_string(k) + ".pickle";
        vs::SourceStamp src{(inflated ? "/" + std::string(4000, 'p') + "/" : "/lustre/job/") + capture,
                            400u << 20, 0};
        const std::string file = vs::encodeRankSummary(inflated ? inflatedRank(k) : smallRank(k), src);
        std::ofstream(dir + "/" + capture + vs::RankSummaryFile::kSuffix, std::ios::binary) << file;
        bytes += file.size();
    }
    std::printf("%d %s summaries in %s: %.0f bytes each\n", ranks, argv[3], dir.c_str(),
                double(bytes) / ranks);
    return 0;
}
