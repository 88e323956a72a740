#include "CaptureDiff.h"

#include "CompareVerdict.h"
#include "StackKey.h"
#include "analysis/FrameFilter.h"
#include "analysis/Lifetimes.h"
#include "analysis/SiteText.h"
#include "load/AnalysisBudget.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

namespace vs {

std::string_view diffChangeName(DiffChange c) {
    switch (c) {
    case DiffChange::Added: return "added";
    case DiffChange::Removed: return "removed";
    case DiffChange::Grown: return "grown";
    case DiffChange::Shrunk: return "shrunk";
    case DiffChange::Same: return "same";
    }
    return "same";
}

int64_t DiffRow::magnitude() const { return std::max(std::llabs(liveDelta()), std::llabs(peakDelta())); }

namespace {

// One side's memory by stack key (StackKey.h); the stack it was first seen with names it.
struct Holding {
    StackId stack;
    std::string site;
    int64_t live = 0, peak = 0;
    uint32_t blocks = 0, allocs = 0;
};

struct SideResult {
    SideTotals totals;
    std::unordered_map<uint32_t, Holding> byKey;
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
    const auto lifetimes = pairAllocations(s.trace(), s.replay());
    out.curve = iterationCurve(s, findIterations(c, s.trace(), lifetimes));
    if (s.empty()) return out;
    std::vector<Holding*> ofStack(c.stacks.size(), nullptr);
    const uint32_t last = s.lastEvent(), peakAt = out.totals.peakEvent;
    int64_t explainedLive = 0, explainedPeak = 0;
    for (size_t i = 0; i < lifetimes.size(); ++i) {
        if ((i & 0xffff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        const Allocation& al = lifetimes[i];
        if (al.alloc > last) break; // lifetimes are in alloc order
        const bool live = al.aliveAt(last), atPeak = al.aliveAt(peakAt), made = al.alloc >= s.first;
        if (!live && !atPeak && !made) continue;
        Holding*& h = ofStack[al.stack.value];
        if (!h) {
            h = &out.byKey[keys.key(c, al.stack)];
            if (h->site.empty()) h->stack = al.stack, h->site = siteText(c, al.stack);
        }
        if (live) h->live += int64_t(al.bytes), ++h->blocks, explainedLive += int64_t(al.bytes);
        if (atPeak) h->peak += int64_t(al.bytes), explainedPeak += int64_t(al.bytes);
        h->allocs += made;
    }
    // blocks older than the recording are counted by allocated but have no alloc event
    if (out.totals.live != explainedLive || out.totals.peak != explainedPeak) {
        Holding& h = out.byKey[kBeforeKey];
        h.site = kBeforeRecording;
        h.live = out.totals.live - explainedLive, h.peak = out.totals.peak - explainedPeak;
    }
    return out;
}

// A row's stack as text, outermost first, at most kMaxRowFrames of them: the outermost and the
// innermost halves around one line saying how many are left out (a 10,000-frame recursion names its
// code in a few; all of them would be a string each, for every row).
std::vector<std::string> rowFrames(const Capture& c, const Holding& h) {
    if (h.site == kBeforeRecording) return {kBeforeRecording};
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

void add(DiffRow& row, const Holding& h, bool isA) {
    (isA ? row.liveA : row.liveB) += h.live;
    (isA ? row.peakA : row.peakB) += h.peak;
    (isA ? row.blocksA : row.blocksB) += h.blocks;
    (isA ? row.allocsA : row.allocsB) += h.allocs;
}

// Rows keyed by `keyOf(stack key, holding)`, changed ones only, largest difference first; the text of
// a row (its site and frames) is made for the rows kept only.
template <class Key, class KeyOf>
std::vector<DiffRow> rows(const DiffSide& sa, const SideResult& a, const DiffSide& sb, const SideResult& b, KeyOf keyOf,
                          size_t* unchanged, bool stacks) {
    struct Named {
        DiffRow row;
        const Capture* capture = nullptr;
        const Holding* holding = nullptr;
    };
    std::unordered_map<Key, Named> byKey;
    for (const auto* side : {&a, &b})
        for (const auto& [key, h] : side->byKey) {
            Named& n = byKey[keyOf(key, h)];
            if (!n.holding) n.holding = &h, n.capture = &(side == &a ? sa : sb).analysis->capture();
            add(n.row, h, side == &a);
        }
    std::vector<DiffRow> out;
    size_t same = 0;
    for (auto& [key, n] : byKey) {
        n.row.change = classify(n.row);
        if (n.row.liveDelta() == 0 && n.row.peakDelta() == 0) {
            ++same;
            continue;
        }
        n.row.site = n.holding->site;
        n.row.frames = stacks ? rowFrames(*n.capture, *n.holding) : std::vector<std::string>{n.row.site};
        out.push_back(std::move(n.row));
    }
    std::sort(out.begin(), out.end(), [](const DiffRow& x, const DiffRow& y) {
        if (x.magnitude() != y.magnitude()) return x.magnitude() > y.magnitude();
        return x.site != y.site ? x.site < y.site : x.frames < y.frames;
    });
    if (unchanged) *unchanged = same;
    return out;
}

} // namespace

CaptureDiff compareCaptures(const DiffSide& a, const DiffSide& b, const std::atomic<bool>* cancel) {
    CaptureDiff d;
    if (a.analysis != b.analysis) d.context = contextDifferences(a.analysis->capture(), b.analysis->capture());
    StackKeys keys(analysisBudget()); // one key space for both sides
    SideResult ra = measure(a, keys, cancel), rb = measure(b, keys, cancel);
    d.a = ra.totals, d.b = rb.totals;
    d.stacks = rows<uint32_t>(a, ra, b, rb, [](uint32_t key, const Holding&) { return key; }, &d.unchangedStacks, true);
    d.sites = rows<std::string>(a, ra, b, rb, [](uint32_t, const Holding& h) { return h.site; }, nullptr, false);
    d.iterations = alignIterations(std::move(ra.curve), std::move(rb.curve));
    d.verdict = compareVerdict(d);
    return d;
}

} // namespace vs
