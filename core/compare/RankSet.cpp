#include "RankSet.h"

#include "RankOutliers.h"
#include "load/OpenAnalysis.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <thread>

namespace vs {

size_t RankSet::readable() const {
    return size_t(std::count_if(ranks.begin(), ranks.end(), [](const RankSummary& r) { return r.ok(); }));
}

std::vector<std::string> rankFiles(const std::string& folder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) throw std::runtime_error(folder + " is not a folder");
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        const std::string name = e.path().filename().string();
        const auto endsWith = [&](const char* s) {
            const std::string t = s;
            return name.size() > t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
        };
        if (e.is_regular_file() && (endsWith(".vscap") || endsWith(".pickle") || endsWith(".pickle.gz") ||
                                    endsWith(".pickle.zst")))
            out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
        const int ra = rankFromPath(a), rb = rankFromPath(b);
        return ra != rb ? ra < rb : a < b;
    });
    if (out.empty()) throw std::runtime_error("no capture files (.pickle, .pickle.gz, .pickle.zst, .vscap) in " + folder);
    return out;
}

namespace {

RankSummary summariseFile(const std::string& path, const std::atomic<bool>* cancel) {
    AnalysisOptions o;
    o.cancel = cancel;
    try {
        auto a = openAnalysis(path, o);
        return summariseRank(*a, cancel); // the analysis is dropped here: only the summary stays
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        RankSummary s;
        s.path = path, s.rank = rankFromPath(path), s.error = e.what();
        return s;
    }
}

} // namespace

RankSet loadRanks(const std::vector<std::string>& paths, const RankLoadOptions& options) {
    RankSet set;
    set.ranks.resize(paths.size());
    const unsigned cores = std::max(1u, options.threads ? options.threads : std::thread::hardware_concurrency());
    const unsigned workers = std::min<unsigned>(cores, unsigned(paths.size()));
    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> cancelled{false};
    auto work = [&] {
        try {
            for (size_t i; (i = next++) < paths.size();) {
                if (options.cancel && options.cancel->load()) throw Cancelled();
                set.ranks[i] = summariseFile(paths[i], options.cancel);
                if (options.progress) options.progress(++done, paths.size());
            }
        } catch (const Cancelled&) {
            cancelled = true;
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (cancelled) throw Cancelled();
    // files that do not name their rank are numbered after the highest named one, in the order given
    int unnamed = 0;
    for (const auto& r : set.ranks) unnamed = std::max(unnamed, r.rank + 1);
    for (auto& r : set.ranks)
        if (r.rank < 0) r.rank = unnamed++;
    finishRankSet(set);
    return set;
}

void finishRankSet(RankSet& set) {
    std::stable_sort(set.ranks.begin(), set.ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    set.firstUs = INT64_MAX, set.lastUs = INT64_MIN;
    for (const auto& r : set.ranks)
        if (r.ok() && r.events) set.firstUs = std::min(set.firstUs, r.firstUs), set.lastUs = std::max(set.lastUs, r.lastUs);
    if (set.firstUs > set.lastUs) set.firstUs = set.lastUs = 0;
    set.outliers = findOutliers(set.ranks, &set.medianPeak, &set.medianGrowth);
}

} // namespace vs
