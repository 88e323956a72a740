#include "RankSet.h"

#include "RankBudget.h"
#include "RankInputs.h"
#include "RankOutliers.h"
#include "RankSummaryFile.h"
#include "load/OpenAnalysis.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace vs {

size_t RankSet::readable() const {
    return size_t(std::count_if(ranks.begin(), ranks.end(), [](const RankSummary& r) { return r.ok(); }));
}

namespace {

RankSummary unreadable(const std::string& path, const std::string& why) {
    RankSummary s;
    s.path = path, s.rank = rankFromPath(path), s.error = why;
    return s;
}

RankSummary summariseFile(const std::string& path, const std::atomic<bool>* cancel) {
    AnalysisOptions o;
    o.cancel = cancel;
    try {
        auto a = openAnalysis(path, o);
        return summariseRank(*a, cancel); // the analysis is dropped here: only the summary stays
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        return unreadable(path, e.what());
    }
}

RankSummary readSummary(const std::string& path, std::optional<SourceStamp>& source) {
    try {
        RankSummaryFile f = readRankSummaryFile(path);
        source = std::move(f.source);
        return std::move(f.summary);
    } catch (const std::exception& e) {
        return unreadable(path, e.what());
    }
}

// Runs `each(i)` for the indices in `todo` on up to `threads` workers. The first exception a worker
// throws (Cancelled, the budget's LoadError) stops the others and is thrown here.
void forEachParallel(const std::vector<size_t>& todo, const RankLoadOptions& options,
                     const std::function<void(size_t)>& each) {
    const unsigned workers = rankWorkers(options.threads, todo.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr first;
    std::mutex firstMutex;
    auto work = [&] {
        try {
            for (size_t k; !stop && (k = next++) < todo.size();) {
                if (options.cancel && options.cancel->load()) throw Cancelled();
                each(todo[k]);
            }
        } catch (...) {
            const std::lock_guard lock(firstMutex);
            if (!first) first = std::current_exception();
            stop = true;
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) try {
            pool.emplace_back(work);
        } catch (const std::system_error&) { // the system has no more threads to give: the others do it
            break;
        }
    work();
    for (auto& t : pool) t.join();
    if (first) std::rethrow_exception(first);
}

// Two files that name one rank cannot both be it, and which one is cannot be told: every file of a
// rank named more than once keeps an error saying so (the statistics then leave them all out, so a
// stray copy moves no median). `files[i]` names `ranks[i]`; those in `skip` are not in the set.
void refuseDuplicateRanks(std::vector<RankSummary>& ranks, const std::vector<std::string>& files,
                          const std::vector<bool>& skip) {
    std::unordered_map<int, std::vector<size_t>> byRank;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (!skip[i] && ranks[i].ok() && ranks[i].rank >= 0) byRank[ranks[i].rank].push_back(i);
    for (const auto& [rank, same] : byRank) {
        if (same.size() < 2) continue;
        for (size_t i : same) {
            const size_t other = same[i == same[0] ? 1 : 0];
            ranks[i].error = "rank " + std::to_string(rank) + " is named by " + std::to_string(same.size()) +
                             " files (also " + std::filesystem::path(files[other]).filename().string() +
                             "): none of them is used";
        }
    }
}

} // namespace

unsigned rankWorkers(unsigned threads, size_t files) {
    constexpr unsigned kPerCore = 4;
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned asked = threads ? std::min(threads, kPerCore * cores) : cores;
    return unsigned(std::max<size_t>(1, std::min<size_t>(asked, files)));
}

RankSet loadRanks(const std::vector<std::string>& paths, const RankLoadOptions& options) {
    RankSet set;
    set.ranks.resize(paths.size());
    RankInputs in{paths, std::vector<bool>(paths.size()),
                  std::vector<std::optional<SourceStamp>>(paths.size())};
    std::vector<size_t> summaries, captures;
    for (size_t i = 0; i < paths.size(); ++i)
        (isRankSummaryPath(paths[i]) ? summaries : captures).push_back(i);
    for (size_t i : summaries) in.summary[i] = true;
    std::atomic<size_t> done{0};
    RankBudget budget(options.maxMemory, paths.size());
    const auto advance = [&] {
        if (options.progress) options.progress(++done, paths.size());
    };
    // the summaries first (a few KB each): the captures they stand for are then not read
    forEachParallel(summaries, options, [&](size_t i) {
        set.ranks[i] = readSummary(paths[i], in.source[i]), advance();
        budget.charge(set.ranks[i].heldBytes() + (in.source[i] ? in.source[i]->path.capacity() : 0));
    });
    std::vector<bool> skip(paths.size());
    set.warnings = pairSummaries(in, set.ranks, skip);
    for (size_t i : captures)
        if (skip[i]) advance();
    std::erase_if(captures, [&](size_t i) { return skip[i]; });
    forEachParallel(captures, options, [&](size_t i) {
        set.ranks[i] = summariseFile(paths[i], options.cancel), advance();
        budget.charge(set.ranks[i].heldBytes());
    });
    refuseDuplicateRanks(set.ranks, paths, skip);
    std::vector<RankSummary> kept;
    kept.reserve(set.ranks.size());
    for (size_t i = 0; i < paths.size(); ++i)
        if (!skip[i]) kept.push_back(std::move(set.ranks[i]));
    set.ranks = std::move(kept);
    numberUnnamedRanks(set.ranks);
    finishRankSet(set);
    return set;
}

void numberUnnamedRanks(std::vector<RankSummary>& ranks) {
    int64_t unnamed = 0; // in 64 bits: a summary may name rank 2^31 - 1
    for (const auto& r : ranks) unnamed = std::max(unnamed, int64_t(r.rank) + 1);
    for (auto& r : ranks) {
        if (r.rank >= 0) continue;
        if (unnamed > INT32_MAX) { // no number left after the highest: this one stays out of the statistics
            r.error = "it names no rank and none is left after rank " + std::to_string(INT32_MAX) +
                      ": name it rankN";
            continue;
        }
        r.rank = int(unnamed++);
    }
}

void finishRankSet(RankSet& set) {
    std::stable_sort(set.ranks.begin(), set.ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    set.firstUs = INT64_MAX, set.lastUs = INT64_MIN;
    for (const auto& r : set.ranks)
        if (r.ok() && r.events)
            set.firstUs = std::min(set.firstUs, r.firstUs), set.lastUs = std::max(set.lastUs, r.lastUs);
    if (set.firstUs > set.lastUs) set.firstUs = set.lastUs = 0;
    set.outliers = findOutliers(set.ranks, &set.medianPeak, &set.medianGrowth);
}

} // namespace vs
