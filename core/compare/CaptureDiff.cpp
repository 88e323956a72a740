#include "CaptureDiff.h"

#include "CompareVerdict.h"
#include "StackKey.h"
#include "analysis/Lifetimes.h"
#include "analysis/SiteText.h"
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

// One side's memory by stack key.
struct Holding {
    std::string site;
    std::vector<std::string> frames;
    int64_t live = 0, peak = 0;
    uint32_t blocks = 0, allocs = 0;
};

struct SideResult {
    SideTotals totals;
    std::unordered_map<std::string, Holding> byKey;
    IterationCurve curve;
};

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

SideResult measure(const DiffSide& s, const std::atomic<bool>* cancel) {
    SideResult out;
    out.totals = totalsOf(s);
    const Capture& c = s.analysis->capture();
    const auto lifetimes = pairAllocations(s.trace(), s.replay());
    out.curve = iterationCurve(s, findIterations(c, s.trace(), lifetimes));
    if (s.empty()) return out;
    StackKeys keys(c);
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
            h = &out.byKey[keys.key(al.stack)];
            if (h->site.empty()) h->site = siteText(c, al.stack), h->frames = keys.frames(al.stack);
        }
        if (live) h->live += int64_t(al.bytes), ++h->blocks, explainedLive += int64_t(al.bytes);
        if (atPeak) h->peak += int64_t(al.bytes), explainedPeak += int64_t(al.bytes);
        h->allocs += made;
    }
    // blocks older than the recording are counted by allocated but have no alloc event
    if (out.totals.live != explainedLive || out.totals.peak != explainedPeak) {
        Holding& h = out.byKey[std::string("\x01") + kBeforeRecording];
        h.site = kBeforeRecording, h.frames = {kBeforeRecording};
        h.live = out.totals.live - explainedLive, h.peak = out.totals.peak - explainedPeak;
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

// Rows keyed by `keyOf(stack key, holding)`, changed ones only, largest difference first.
template <class KeyOf>
std::vector<DiffRow> rows(const SideResult& a, const SideResult& b, KeyOf keyOf, size_t* unchanged) {
    std::unordered_map<std::string, DiffRow> byKey;
    for (const auto* side : {&a, &b})
        for (const auto& [key, h] : side->byKey) {
            DiffRow& row = byKey[keyOf(key, h)];
            if (row.site.empty()) row.site = h.site, row.frames = h.frames;
            add(row, h, side == &a);
        }
    std::vector<DiffRow> out;
    size_t same = 0;
    for (auto& [key, row] : byKey) {
        row.change = classify(row);
        if (row.liveDelta() == 0 && row.peakDelta() == 0) {
            ++same;
            continue;
        }
        out.push_back(std::move(row));
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
    SideResult ra = measure(a, cancel), rb = measure(b, cancel);
    d.a = ra.totals, d.b = rb.totals;
    d.stacks = rows(ra, rb, [](const std::string& key, const Holding&) { return key; }, &d.unchangedStacks);
    d.sites = rows(ra, rb, [](const std::string&, const Holding& h) { return h.site; }, nullptr);
    for (auto& s : d.sites) s.frames = {s.site};
    d.iterations = alignIterations(std::move(ra.curve), std::move(rb.curve));
    d.verdict = compareVerdict(d);
    return d;
}

} // namespace vs
