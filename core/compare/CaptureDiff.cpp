#include "CaptureDiff.h"

#include "CompareVerdict.h"
#include "StackKey.h"
#include "analysis/replay/Lifetimes.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"
#include "load/AnalysisBudget.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <cstdlib>

namespace vs {

std::string_view diffChangeName(DiffChange c) {
    switch (c) {
    case DiffChange::Added:
        return "added";
    case DiffChange::Removed:
        return "removed";
    case DiffChange::Grown:
        return "grown";
    case DiffChange::Shrunk:
        return "shrunk";
    case DiffChange::Same:
        return "same";
    }
    return "same";
}

int64_t DiffRow::magnitude() const {
    return std::max(std::llabs(liveDelta()), std::llabs(peakDelta()));
}

namespace {

// One side's memory under one stack key (StackKey.h); the stack it was first seen with names it.
struct Holding {
    StackId stack;
    uint32_t key = 0, site = 0; // stack key (kBeforeKey: before the recording) and site key
    int64_t live = 0, peak = 0;
    uint32_t blocks = 0, allocs = 0;
};

struct SideResult {
    SideTotals totals;
    const Capture* capture = nullptr;
    std::vector<Holding> holdings; // one per stack key held, in the order first seen
    IterationCurve curve;
};

// The key of memory no recorded allocation explains (blocks older than the recording).
constexpr uint32_t kBeforeKey = StackKeys::kNone;

SideTotals totalsOf(const DiffSide& s) {
    SideTotals t;
    if (s.empty()) return t;
    const auto& r = s.replay();
    const uint32_t last = s.lastEvent();
    t.peakEvent = uint32_t(r.allocated.argMax(s.first, last + 1));
    t.peak = r.allocated[t.peakEvent];
    t.peakReserved = r.reserved.range(s.first, last + 1).max;
    t.live = r.allocated[last];
    t.events = last - s.first + 1;
    t.seconds = double(s.trace().timeUs[last] - s.trace().timeUs[s.first]) / 1e6;
    return t;
}

SideResult measure(const DiffSide& s, StackKeys& keys, const std::atomic<bool>* cancel) {
    SideResult out;
    out.totals = totalsOf(s);
    const Capture& c = s.analysis->capture();
    out.capture = &c;
    if (s.device >= s.analysis->deviceCount()) return out; // a capture without devices: nothing held
    const auto lifetimes = pairAllocations(s.trace(), s.replay());
    out.curve = iterationCurve(s, findIterations(c, s.trace(), lifetimes));
    if (s.empty()) return out;
    constexpr uint32_t kUnseen = UINT32_MAX;
    std::vector<uint32_t> ofStack(c.stacks.size(), kUnseen); // stack -> holding
    std::vector<uint32_t> ofKey;                             // stack key -> holding
    const uint32_t last = s.lastEvent(), peakAt = out.totals.peakEvent;
    int64_t explainedLive = 0, explainedPeak = 0;
    for (size_t i = 0; i < lifetimes.size(); ++i) {
        if ((i & 0xffff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        const Allocation& al = lifetimes[i];
        if (al.alloc > last) break; // lifetimes are in alloc order
        const bool live = al.aliveAt(last), atPeak = al.aliveAt(peakAt), made = al.alloc >= s.first;
        if (!live && !atPeak && !made) continue;
        uint32_t& at = ofStack[al.stack.value];
        if (at == kUnseen) {
            const uint32_t key = keys.key(c, al.stack);
            if (key >= ofKey.size()) ofKey.resize(std::max<size_t>(key + 1, ofKey.size() * 2), kUnseen);
            if (ofKey[key] == kUnseen) {
                ofKey[key] = uint32_t(out.holdings.size());
                out.holdings.push_back({al.stack, key, keys.site(c, al.stack)});
            }
            at = ofKey[key];
        }
        Holding& h = out.holdings[at];
        if (live) h.live += int64_t(al.bytes), ++h.blocks, explainedLive += int64_t(al.bytes);
        if (atPeak) h.peak += int64_t(al.bytes), explainedPeak += int64_t(al.bytes);
        h.allocs += made;
    }
    // blocks older than the recording are counted by allocated but have no alloc event
    if (out.totals.live != explainedLive || out.totals.peak != explainedPeak)
        out.holdings.push_back({StackId{}, kBeforeKey, keys.site(kBeforeRecording),
                                out.totals.live - explainedLive, out.totals.peak - explainedPeak});
    return out;
}

// A row's stack as text, outermost first, at most kMaxRowFrames of them: the outermost and the
// innermost halves around one line saying how many are left out (a 10,000-frame recursion names its
// code in a few; all of them would be a string each, for every row).
std::vector<std::string> rowFrames(const Capture& c, const Holding& h) {
    if (h.key == kBeforeKey) return {kBeforeRecording};
    const auto shown = shownFrames(c, h.stack, true, false); // innermost first
    const size_t n = shown.size(), half = kMaxRowFrames / 2;
    std::vector<std::string> out;
    for (size_t k = 0; k < n; ++k) {
        if (n > kMaxRowFrames && k == half) {
            out.push_back("... " + std::to_string(n - 2 * half) + " frames ...");
            k = n - half;
        }
        out.push_back(frameText(c, shown[n - 1 - k]));
    }
    return out;
}

DiffChange classify(const DiffRow& r) {
    const bool inA = r.liveA || r.peakA || r.allocsA, inB = r.liveB || r.peakB || r.allocsB;
    if (!inA && inB) return DiffChange::Added;
    if (inA && !inB) return DiffChange::Removed;
    const int64_t d = r.liveDelta() != 0 ? r.liveDelta() : r.peakDelta();
    return d > 0 ? DiffChange::Grown : d < 0 ? DiffChange::Shrunk : DiffChange::Same;
}

// A row's figures while they are summed: a DiffRow, with its text, is made for the changed rows only.
struct Sum {
    int64_t liveA = 0, liveB = 0, peakA = 0, peakB = 0;
    uint32_t blocksA = 0, blocksB = 0, allocsA = 0, allocsB = 0;
    const Holding* first = nullptr; // names the row
    const Capture* capture = nullptr;
    bool changed() const { return liveA != liveB || peakA != peakB; }
    int64_t magnitude() const { return std::max(std::llabs(liveB - liveA), std::llabs(peakB - peakA)); }
};

void add(Sum& sum, const Holding& h, const Capture& c, bool isA) {
    (isA ? sum.liveA : sum.liveB) += h.live;
    (isA ? sum.peakA : sum.peakB) += h.peak;
    (isA ? sum.blocksA : sum.blocksB) += h.blocks;
    (isA ? sum.allocsA : sum.allocsB) += h.allocs;
    if (!sum.first) sum.first = &h, sum.capture = &c;
}

DiffRow rowOf(const Sum& s) {
    DiffRow r;
    r.liveA = s.liveA, r.liveB = s.liveB, r.peakA = s.peakA, r.peakB = s.peakB;
    r.blocksA = s.blocksA, r.blocksB = s.blocksB, r.allocsA = s.allocsA, r.allocsB = s.allocsB;
    r.change = classify(r);
    return r;
}

// Rows by `indexOf(holding)` (a dense index below `n`: stack keys or site keys), changed ones only,
// largest difference first (then by site, then by index: no order from a hash). The stacks table's
// kTextRows largest rows carry their frames' text and every table's kTextRows largest their site as a
// frame; the rows past those carry none (a million distinct stacks would be a string per frame of
// each): their site names them.
template <class IndexOf>
std::vector<DiffRow> rows(const SideResult& a, const SideResult& b, const StackKeys& keys,
                          const std::vector<uint32_t>& siteRank, size_t n, IndexOf indexOf, size_t* unchanged,
                          bool stacks) {
    std::vector<Sum> sums(n);
    for (const auto* side : {&a, &b})
        for (const Holding& h : side->holdings) add(sums[indexOf(h)], h, *side->capture, side == &a);
    std::vector<uint32_t> changed;
    size_t same = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (sums[i].first) sums[i].changed() ? changed.push_back(i) : void(++same);
    auto site = [&](uint32_t i) -> const std::string& { return keys.siteText(sums[i].first->site); };
    struct Order { // what orders a changed row, held beside it: no lookup per comparison
        int64_t magnitude;
        uint32_t siteRank, index;
    };
    std::vector<Order> order;
    order.reserve(changed.size());
    for (uint32_t i : changed) order.push_back({sums[i].magnitude(), siteRank[sums[i].first->site], i});
    std::sort(order.begin(), order.end(), [](const Order& x, const Order& y) {
        if (x.magnitude != y.magnitude) return x.magnitude > y.magnitude;
        return x.siteRank != y.siteRank ? x.siteRank < y.siteRank : x.index < y.index;
    });
    for (size_t k = 0; k < order.size(); ++k) changed[k] = order[k].index;
    std::vector<DiffRow> out;
    out.reserve(changed.size());
    for (uint32_t i : changed) {
        DiffRow& r = out.emplace_back(rowOf(sums[i]));
        r.site = site(i);
        if (out.size() <= kTextRows)
            r.frames =
                stacks ? rowFrames(*sums[i].capture, *sums[i].first) : std::vector{std::string(r.site)};
    }
    if (unchanged) *unchanged = same;
    return out;
}

} // namespace

CaptureDiff compareCaptures(const DiffSide& a, const DiffSide& b, const std::atomic<bool>* cancel) {
    CaptureDiff d;
    if (a.analysis != b.analysis)
        d.context = contextDifferences(a.analysis->capture(), b.analysis->capture());
    StackKeys keys(analysisBudget()); // one key space for both sides
    SideResult ra = measure(a, keys, cancel), rb = measure(b, keys, cancel);
    d.a = ra.totals, d.b = rb.totals;
    const size_t stackRows = keys.keys() + 1;                // and one for memory older than the recording
    const std::vector<uint32_t> siteRank = keys.siteRanks(); // rows of equal size in the order of their sites
    d.stacks = rows(
        ra, rb, keys, siteRank, stackRows,
        [&](const Holding& h) { return h.key == kBeforeKey ? keys.keys() : h.key; }, &d.unchangedStacks,
        true);
    d.sites = rows(
        ra, rb, keys, siteRank, keys.sites(), [](const Holding& h) { return h.site; }, nullptr, false);
    d.iterations = alignIterations(std::move(ra.curve), std::move(rb.curve));
    d.siteTexts = keys.siteTexts();
    d.verdict = compareVerdict(d);
    return d;
}

} // namespace vs
