#include "analysis/growth/Iterations.h"

#include "analysis/RecorderPauses.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <unordered_map>

namespace vs {

size_t Iterations::indexOf(uint32_t event) const {
    return size_t(std::upper_bound(starts.begin(), starts.end(), event) - starts.begin());
}

std::vector<uint32_t> startsWithin(const Iterations& its, uint32_t first, uint32_t last) {
    auto lo = std::lower_bound(its.starts.begin(), its.starts.end(), first);
    auto hi = std::upper_bound(its.starts.begin(), its.starts.end(), last);
    return {lo, hi};
}

namespace {

// upper_bound over [from, end) for a value at or after the previous one: an exponential probe
// first, so a walk over ascending values costs the log of each gap, not of the whole list.
std::vector<uint32_t>::const_iterator upperFrom(std::vector<uint32_t>::const_iterator from,
                                                std::vector<uint32_t>::const_iterator end, uint32_t value) {
    size_t step = 1;
    while (size_t(end - from) > step && from[ptrdiff_t(step)] <= value) step *= 2;
    return std::upper_bound(from + ptrdiff_t(step / 2), from + ptrdiff_t(std::min(step, size_t(end - from))),
                            value);
}

} // namespace

size_t iterationsMaking(const std::vector<Allocation>& all, std::span<const uint32_t> allocations,
                        const std::vector<uint32_t>& starts, bool countBeforeFirst) {
    std::vector<uint32_t> events;
    events.reserve(allocations.size());
    for (uint32_t a : allocations) events.push_back(all[a].alloc);
    if (!std::is_sorted(events.begin(), events.end()))
        std::sort(events.begin(), events.end()); // a group by site
    size_t count = 0, previous = SIZE_MAX;
    auto at = starts.begin();
    for (uint32_t e : events) {
        at = upperFrom(at, starts.end(), e);
        const auto k = size_t(at - starts.begin());
        if (k != previous && (k > 0 || countBeforeFirst)) ++count;
        previous = k;
    }
    return count;
}

std::string_view withoutNumber(std::string_view name) {
    size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
    return end < name.size() && end > 0 ? name.substr(0, end) : name;
}

namespace {

struct Candidate {
    std::string name;
    std::vector<uint32_t> starts;
    bool numbered = false;
};

// A step marker comes once per step, so the gaps between its starts are alike; a marker that
// comes several times per step (DDP's `nccl:all_reduce` per gradient bucket, a per-layer
// annotation) has short gaps inside a step and a long one between steps.
bool regular(std::span<const uint32_t> starts) {
    if (starts.size() < 3) return starts.size() == 2;
    std::vector<uint32_t> gaps;
    for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(starts[i] - starts[i - 1]);
    std::sort(gaps.begin(), gaps.end());
    const uint64_t median = gaps[gaps.size() / 2], p90 = gaps[gaps.size() * 9 / 10];
    return median > 0 && p90 <= 3 * median;
}

std::vector<Candidate> annotationCandidates(const Capture& c, const DeviceTrace& t) {
    std::unordered_map<std::string_view, Candidate> byName;
    for (const auto& a : c.annotations) {
        if (!a.start || a.device != t.device) continue;
        const auto full = c.strings.text(a.name);
        if (full == kGcAnnotation || full == kPauseAnnotation) continue; // the recorder's, not the program's
        const auto base = withoutNumber(full);
        Candidate& k = byName[base];
        k.name = std::string(base), k.numbered |= base.size() != full.size();
        const auto e = static_cast<uint32_t>(std::lower_bound(t.timeUs.begin(), t.timeUs.end(), a.timeUs) -
                                             t.timeUs.begin());
        if (e < t.eventCount()) k.starts.push_back(e);
    }
    std::vector<Candidate> out;
    for (auto& [name, k] : byName) {
        std::sort(k.starts.begin(), k.starts.end());
        k.starts.erase(std::unique(k.starts.begin(), k.starts.end()), k.starts.end());
        if (k.starts.size() >= 2 && regular(k.starts)) out.push_back(std::move(k));
    }
    // numbered step markers first (the program counts its steps), then the most frequent
    std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
        if (a.numbered != b.numbered) return a.numbered;
        if (a.starts.size() != b.starts.size()) return a.starts.size() > b.starts.size();
        return a.name < b.name;
    });
    return out;
}

// Iteration boundaries from repeating allocations, when nothing is annotated. Candidates: stacks
// whose allocations are all freed again (per-iteration temporaries) and come at regular intervals;
// their allocation count is the number of iterations. One such stack's allocations mark them.
// The allocations are grouped by stack in one flat array (a count per stack, then each stack's
// events at its offset): a million distinct stacks are not a map node and a vector each.
std::vector<uint32_t> repeatingPattern(const Capture& c, const std::vector<Allocation>& all,
                                       std::string& marker) {
    std::vector<uint32_t> offset(c.stacks.size() + 1, 0);
    std::vector<uint8_t> churn(c.stacks.size(), 1);
    for (const auto& a : all) {
        if (a.stack.value == 0 || a.stack.value >= c.stacks.size()) continue;
        ++offset[a.stack.value + 1];
        churn[a.stack.value] &= a.freeRequested != kNoEvent;
    }
    for (size_t k = 1; k < offset.size(); ++k) offset[k] += offset[k - 1];
    std::vector<uint32_t> events(offset.back()), next(offset.begin(), offset.end() - 1);
    for (const auto& a : all) // in alloc order: each stack's events ascend
        if (a.stack.value != 0 && a.stack.value < c.stacks.size()) events[next[a.stack.value]++] = a.alloc;
    auto allocsOf = [&](uint32_t k) {
        return std::span<const uint32_t>(events.data() + offset[k], offset[k + 1] - offset[k]);
    };
    struct Count {
        uint32_t stacks = 0, earliest = UINT32_MAX, heartbeat = 0;
    };
    std::map<size_t, Count> byCount; // allocation count -> regular churn stacks with it
    for (uint32_t k = 1; k < churn.size(); ++k) {
        const auto allocs = allocsOf(k);
        if (allocs.size() < 3 || !churn[k] || allocs.front() == 0 || !regular(allocs)) continue;
        Count& n = byCount[allocs.size()];
        ++n.stacks;
        if (allocs.front() < n.earliest) n.earliest = allocs.front(), n.heartbeat = k;
    }
    if (byCount.empty()) return {};
    // The most stacks win (every op of a step has a stack of its own, while a loop over layers or
    // parameters shares one), weighted by log2 of the count: a framework's per-epoch hooks can make
    // as many distinct stacks as the few a step shows (Lightning's steps run partly on autograd's
    // thread, without Python frames). Ties: the larger count.
    uint32_t heartbeat = 0;
    double best = 0;
    for (const auto& [count, n] : byCount)
        if (const double score = n.stacks * std::log2(double(count)); score >= best)
            best = score, heartbeat = n.heartbeat;
    const uint32_t site = firstUserFrame(c, StackId{heartbeat});
    marker = site == kNoFrame ? std::string("repeating allocation")
                              : frameText(c, c.stacks.frames(StackId{heartbeat})[site]);
    const auto starts = allocsOf(heartbeat);
    return {starts.begin(), starts.end()};
}

} // namespace

Iterations findIterations(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all) {
    Iterations it;
    auto candidates = annotationCandidates(c, t);
    auto step = std::find_if(candidates.begin(), candidates.end(),
                             [](const Candidate& k) { return k.starts.size() >= 3; });
    if (step != candidates.end()) {
        it.starts = step->starts, it.marker = step->name, it.fromAnnotations = true;
        // a phase marker comes at most every other iteration (epochs, evaluation rounds)
        for (const auto& k : candidates)
            if (&k != &*step && 2 * k.starts.size() <= it.starts.size() &&
                k.starts.size() > it.phaseStarts.size())
                it.phaseStarts = k.starts, it.phaseMarker = k.name;
        return it;
    }
    it.starts = repeatingPattern(c, all, it.marker);
    if (it.starts.size() < 3) it.starts.clear(), it.marker.clear();
    return it;
}

} // namespace vs
