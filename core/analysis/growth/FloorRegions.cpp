#include "analysis/growth/FloorRegions.h"

#include "analysis/growth/FloorRises.h"
#include "analysis/growth/ReleaseCause.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/NativeOwner.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace vs {
namespace {

// One stack's allocations alive at a rise's top that were made during it, and how much of the
// stack's memory the rise keeps.
struct StackKept {
    std::vector<uint32_t> allocations; // indices into the lifetimes, by alloc event
    int64_t grew = 0;                  // the rise of the stack's live floor over the rise
    uint32_t from = 0;                 // the event its floor starts rising after
    int64_t keptBytes = 0;             // of `allocations`
};

// A stack's live bytes at the rise's points: the floor of each of its slices, then its top.
std::vector<int64_t> liveAt(std::vector<std::pair<uint32_t, int64_t>>& steps,
                            const std::vector<uint32_t>& points) {
    std::sort(steps.begin(), steps.end());
    std::vector<int64_t> out;
    int64_t live = 0;
    size_t k = 0;
    for (uint32_t p : points) {
        for (; k < steps.size() && steps[k].first <= p; ++k) live += steps[k].second;
        out.push_back(live);
    }
    return out;
}

// How far above its own floor (the least it holds from then on) the stack typically is: about
// nothing for memory that is only added (a list appended to, a tensor regrown), the size of its churn
// for a stack that also makes short-lived memory (the median over the points).
int64_t typicalExcursion(const std::vector<int64_t>& live) {
    std::vector<int64_t> above(live.size());
    int64_t low = INT64_MAX;
    for (size_t i = live.size(); i-- > 0;) low = std::min(low, live[i]), above[i] = live[i] - low;
    std::nth_element(above.begin(), above.begin() + ptrdiff_t(above.size() / 2), above.end());
    return above[above.size() / 2];
}

// The shape of a non-decreasing series: how far it rises, in how many steps, its largest step, and
// the points where it first reaches 10 %, 50 % and 75 % of its rise.
struct RiseShape {
    int64_t rise = 0, largest = 0;
    size_t steps = 0, first = SIZE_MAX, s10 = SIZE_MAX, s50 = SIZE_MAX, s75 = SIZE_MAX;
};

RiseShape riseShape(const std::vector<int64_t>& s) {
    RiseShape r;
    if (s.empty()) return r;
    r.rise = s.back() - s.front();
    for (size_t i = 1; i < s.size() && r.rise > 0; ++i) {
        if (s[i] > s[i - 1])
            ++r.steps, r.first = std::min(r.first, i), r.largest = std::max(r.largest, s[i] - s[i - 1]);
        const int64_t up = s[i] - s.front();
        if (r.s10 == SIZE_MAX && 10 * up >= r.rise) r.s10 = i;
        if (r.s50 == SIZE_MAX && 2 * up >= r.rise) r.s50 = i;
        if (r.s75 == SIZE_MAX && 4 * up >= 3 * r.rise) r.s75 = i;
    }
    return r;
}

// Made steadily: in three or more steps, none of them 40 % of the rise, from 10 % to 75 % of it
// over at least a sixteenth of the points (a burst at one moment is a model, a first step, a warm-up).
bool steadyRise(const RiseShape& r, size_t points) {
    return r.rise > 0 && r.steps >= 3 && 5 * r.largest <= 2 * r.rise &&
           r.s75 - r.s10 >= std::max<size_t>(2, points / 16);
}

// The blocks kept at the top were made across the stack's rise, from its first half on: what the
// stack keeps is the rise, whatever else it allocates and frees meanwhile (every k-th output kept
// from a line that makes one every step, the hardest samples of each batch, a slice that keeps its
// whole storage). A bounded queue keeps only what its last entries made, late in the rise.
bool keptAcrossRise(const std::vector<int64_t>& born, const RiseShape& floor) {
    const RiseShape b = riseShape(born);
    return steadyRise(b, born.size()) && b.s10 <= floor.s50;
}

// Whether a stack's memory grows over the rise, from its live bytes at the rise's points and the
// bytes its kept blocks (alive at the top) had been made by each point: the floor seen from each
// point (the least it holds from then to the top) rises steadily, and it has not levelled off (flat
// since it reached 75 % for a third longer than it took to get there, and a quarter of the trace: a
// cache filled in the first epoch, a bounded queue; a leak on errors that stopped coming half-way
// still counts, and between the two the memory alone cannot tell). When the stack's churn is larger
// than the rise, its kept blocks must have been made across the rise: a queue of tensors of varying
// sizes has a floor that creeps up by chance as its smallest entries pass through.
bool grows(const std::vector<int64_t>& live, const std::vector<int64_t>& born, uint32_t slices, StackKept& k,
           const std::vector<uint32_t>& points) {
    if (live.size() != born.size()) return false;
    // The least the stack holds over the next sixteenth of the points, up to the last sixteenth:
    // a floor free of the end's bias (the least of a stationary series over a shrinking future
    // rises towards the end), then the floor as seen from each point.
    const size_t w = std::max<size_t>(1, live.size() / 16);
    if (live.size() <= w) return false;
    std::vector<int64_t> floor(live.size() - w);
    for (size_t i = 0; i < floor.size(); ++i)
        floor[i] = *std::min_element(live.begin() + ptrdiff_t(i), live.begin() + ptrdiff_t(i + w + 1));
    int64_t low = INT64_MAX;
    for (size_t i = floor.size(); i-- > 0;) floor[i] = low = std::min(low, floor[i]);
    const RiseShape f = riseShape(floor);
    if (!steadyRise(f, live.size())) return false;
    const size_t spread = f.s75 - f.s10, plateau = live.size() - 1 - f.s75;
    if (3 * plateau > 4 * spread && plateau >= slices / 4) return false;
    int64_t least = INT64_MAX; // what it grew by: its floor at the top over its floor at the start
    for (size_t i = live.size(); i-- > 0;) least = std::min(least, live[i]);
    k.grew = live.back() - std::min(live.front(), least), k.from = points[f.first - 1];
    // what a queue keeps at its top replaced entries it held before the rise: more than it grew by
    if (2 * typicalExcursion(live) > f.rise && (4 * k.keptBytes > 5 * k.grew || !keptAcrossRise(born, f)))
        return false;
    return k.grew > 0;
}

struct Candidate {
    FloorRise rise;
    LeakKind kind;
    RegionScale scale;
    std::string releasedBy;
    bool workingSet = false; // shaped like one: growth only if the garbage collector released it
};

// What one step of the program builds up and gives back: the median over its iterations of the
// rise of allocated inside the iteration, and their median length in events (nothing without
// iterations).
struct TypicalStep {
    int64_t rise = 0;
    uint32_t events = 0;
};

TypicalStep typicalStep(const CompactSeries& allocated, const Iterations& its) {
    TypicalStep out;
    if (its.count() < 3) return out;
    std::vector<int64_t> rises;
    std::vector<uint32_t> lengths;
    for (size_t k = 1; k < its.count(); ++k) {
        const uint32_t from = its.starts[k - 1],
                       to = std::min<uint32_t>(its.starts[k], uint32_t(allocated.size()));
        if (to <= from) continue;
        const auto mm = allocated.range(from, to);
        rises.push_back(mm.max - mm.min), lengths.push_back(to - from);
    }
    if (rises.size() < 2) return out;
    std::nth_element(rises.begin(), rises.begin() + ptrdiff_t(rises.size() / 2), rises.end());
    std::nth_element(lengths.begin(), lengths.begin() + ptrdiff_t(lengths.size() / 2), lengths.end());
    out.rise = rises[rises.size() / 2], out.events = lengths[lengths.size() / 2];
    return out;
}

// A working set is what a step builds up and gives back, repeated many times (activations, a
// request's KV cache, a batch's outputs): held for less than a sixteenth of the trace, or built up
// again and again (sixteen or more rises of about its height: the program's unit of work, whatever
// its markers call a step). A rare rise held over four steps or more, or over two to more than
// twice what a step holds, belongs to a phase (an evaluation collecting every batch's outputs
// between two training steps, with no marker of its own; what a reference cycle keeps until the
// collector runs): the release itself marks its end.
enum class Held : uint8_t { WorkingSet, RepeatedPhase, Phase };

Held heldAs(const FloorRise& r, const FloorRises& f, uint32_t events, const TypicalStep& step) {
    const uint32_t held = r.releasedAt - r.start;
    if (longerThanWorkingSet(held, events)) return Held::Phase;
    // a step's working set cannot span several steps, nor rise far above what a step holds
    const bool phaseLike =
        step.events > 0 && ((r.rise() > 2 * step.rise && held >= 2 * uint64_t(step.events)) ||
                            held >= 4 * uint64_t(step.events));
    if (!phaseLike) return Held::WorkingSet;
    const auto alike = std::count_if(f.released.begin(), f.released.end(), [&](const FloorRise& o) {
        return 2 * o.rise() >= r.rise() && o.rise() <= 2 * r.rise();
    });
    return uint64_t(alike) >= kWorkingSetShare ? Held::RepeatedPhase : Held::Phase;
}

// Which rises can be growth, and of what kind: kept to the end, released in the last part of the
// trace with nothing built up again (the program's end), or released at a phase end after holding
// longer than a working set (above), across iterations or above what one step holds.
std::vector<Candidate> candidates(const FloorRises& f, const CompactSeries& allocated, const Iterations& its,
                                  int64_t minRise, const ReleaseCauses& causes) {
    std::vector<Candidate> out;
    const auto events = uint32_t(allocated.size());
    if (f.kept.rise() >= minRise)
        out.push_back(
            {f.kept, LeakKind::Leak, RegionScale::Run, "not released: still alive when the capture ends"});
    const TypicalStep step = typicalStep(allocated, its);
    for (const FloorRise& r : f.released) {
        // A phase repeated sixteen times or more is the program's unit of work (a request), unless
        // the garbage collector is what releases it (a cycle every few steps: its release lines vary);
        // however short, what the collector releases is a cycle's memory.
        const Held held = heldAs(r, f, events, step);
        const bool shaped = held != Held::Phase;
        if (held == Held::WorkingSet && !causes.collectorBetween(r.releasedAt, r.releasedUntil)) continue;
        const uint32_t heldEvents = r.releasedAt - r.start, after = events - r.releasedUntil;
        const uint32_t settled = f.sliceOf(r.releasedUntil); // the floor after the release: built up again?
        const int64_t later =
            settled < f.slices ? *std::max_element(f.floor.begin() + settled, f.floor.end()) : r.from;
        // what is held at the top: the floor just before the release at the scale of a working set
        // (a slice's own floor can fall inside a step, with its temporaries alive)
        FloorRise top = r;
        const uint32_t window = std::max<uint32_t>(f.eventsPerSlice, heldEvents / kWorkingSetShare);
        top.top = uint32_t(
            allocated.argMin(std::max(r.start, r.releasedAt - std::min(window, r.releasedAt)), r.releasedAt));
        // released at the program's end: built up over most of the run, nothing built up again
        if (8ull * after <= heldEvents && 2ull * heldEvents >= events && later < r.from + r.rise() / 2)
            out.push_back({top, LeakKind::Leak, RegionScale::Run, "when the program ends"});
        else if (its.count() < 3 || its.indexOf(r.start) != its.indexOf(r.releasedAt) ||
                 !longerThanWorkingSet(heldEvents, events))
            out.push_back({top, LeakKind::Accumulation, RegionScale::Phase, "", shaped});
    }
    return out;
}

// The bytes of a stack's kept blocks made by each of the rise's points.
std::vector<int64_t> keptBy(const std::vector<Allocation>& all, const std::vector<uint32_t>& kept,
                            const std::vector<uint32_t>& points) {
    std::vector<std::pair<uint32_t, int64_t>> births;
    for (uint32_t i : kept) births.emplace_back(all[i].alloc, int64_t(all[i].bytes));
    return liveAt(births, points);
}

std::vector<StackId> byGrowth(const std::unordered_map<uint32_t, StackKept>& stacks,
                              const std::vector<uint32_t>& chosen) {
    std::vector<std::pair<int64_t, uint32_t>> order;
    for (uint32_t s : chosen) order.emplace_back(stacks.at(s).grew, s);
    std::sort(order.rbegin(), order.rend());
    std::vector<StackId> out;
    for (auto [b, s] : order) out.push_back(StackId{s});
    return out;
}

// The region a rise makes, or nothing when no stack keeps memory repeatedly across it.
struct Inputs {
    uint32_t setupEnd; // allocations before it are the program's setup (before its first marked step)
    const Capture& cap;
    const DeviceTrace& trace;
    const std::vector<Allocation>& all;
    const FloorRises& f;
    const GraphPools& pools;
    int64_t minRise;
};

// The rise's points: the floor of each of its slices; for a rise kept to the end, then the end
// (where a program that has finished holds only what it keeps). A release's last eighth is left
// out: what appears only then is a working set (a step's tensors alive at a slice's floor when
// slices are shorter than a step), not what the rise held.
std::vector<uint32_t> pointsOf(const FloorRises& f, const FloorRise& rise) {
    std::vector<uint32_t> out;
    const bool kept = rise.releasedAt == kNoEvent;
    const uint32_t held = kept ? 0 : (rise.releasedAt - rise.start) / 8;
    const uint32_t end = kept ? f.sliceOf(rise.top) : f.sliceOf(rise.releasedAt - held);
    // a release's points start just before the rise did: what the floor did before it (the steps
    // of a training loop before an evaluation) would hide a short phase in the floor's last sixteenth
    const uint32_t startSlice = f.sliceOf(rise.start);
    const uint32_t from =
        kept ? f.sliceOf(rise.base) : std::max(f.sliceOf(rise.base), startSlice ? startSlice - 1 : 0);
    for (uint32_t s = from; s < end; ++s) out.push_back(f.floorAt[s]);
    if (kept || out.empty()) out.push_back(rise.top);
    return out;
}

// The stacks of what is alive at the rise's top and was made during it, with those blocks.
std::unordered_map<uint32_t, StackKept> keptAtTop(const Inputs& in, const FloorRise& rise) {
    const auto& all = in.all;
    std::unordered_map<uint32_t, StackKept> stacks;
    std::unordered_map<uint32_t, bool> library;
    auto it = std::upper_bound(all.begin(), all.end(), rise.base,
                               [](uint32_t e, const Allocation& x) { return e < x.alloc; });
    for (; it != all.end() && it->alloc <= rise.top; ++it) {
        if (!it->aliveAt(rise.top) || it->stack.value == 0 || it->alloc < in.setupEnd) continue;
        if (in.pools.holds(in.trace.addr[it->alloc], it->alloc)) continue; // a CUDA graph's pool, by design
        if (in.cap.nativeStacks) { // a framework's cache or a library's workspace is not the user's growth
            auto [lib, fresh] = library.try_emplace(it->stack.value, false);
            if (fresh) lib->second = nativeOwner(in.cap, it->stack) != NativeOwner::User;
            if (lib->second) continue;
        }
        StackKept& k = stacks[it->stack.value];
        k.allocations.push_back(uint32_t(it - all.begin()));
        k.keptBytes += int64_t(it->bytes);
    }
    return stacks;
}

// The stacks whose memory grows over the rise (grows()), from their live bytes at its points.
std::vector<uint32_t> growingStacks(const Inputs& in, const FloorRise& rise,
                                    std::unordered_map<uint32_t, StackKept>& stacks) {
    std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, int64_t>>> steps;
    for (auto x = in.all.begin(); x != in.all.end() && x->alloc <= rise.top; ++x)
        if (stacks.count(x->stack.value)) {
            auto& s = steps[x->stack.value];
            s.emplace_back(x->alloc, int64_t(x->bytes));
            if (x->freeRequested <= rise.top) s.emplace_back(x->freeRequested, -int64_t(x->bytes));
        }
    const auto points = pointsOf(in.f, rise);
    std::vector<uint32_t> chosen;
    for (auto& [stack, k] : stacks)
        if (grows(liveAt(steps[stack], points), keptBy(in.all, k.allocations, points), in.f.slices, k,
                  points))
            chosen.push_back(stack);
    return chosen;
}

// The line that lets go of a stack's kept blocks (the innermost user frame of the first free), or
// UINT32_MAX when none is freed. Two stacks let go of at once by different code are two releases.
uint32_t freeLine(const Inputs& in, const StackKept& k) {
    uint32_t first = kNoEvent;
    for (uint32_t i : k.allocations) first = std::min(first, in.all[i].freeRequested);
    if (first == kNoEvent) return UINT32_MAX;
    const StackId s = in.trace.stack[first];
    const uint32_t at = firstUserFrame(in.cap, s);
    return at == kNoFrame ? UINT32_MAX : in.cap.stacks.frames(s)[at].value;
}

// A released region also holds what its stacks made after the top and freed in the release (the
// epoch's last step, freed with the rest: a container frees its items back to front, so the newest
// goes just before the rest); its growth is then its blocks' bytes.
constexpr uint32_t kReleaseSlack = 64; // events between frees of one release
void addFreedWithIt(const Inputs& in, const FloorRise& rise, GrowthRegion& r) {
    std::unordered_set<uint32_t> own;
    for (StackId s : r.stacks) own.insert(s.value);
    const uint32_t until = rise.releasedUntil == kNoEvent ? rise.releasedAt : rise.releasedUntil;
    auto it = std::upper_bound(in.all.begin(), in.all.end(), rise.top,
                               [](uint32_t e, const Allocation& x) { return e < x.alloc; });
    for (; it != in.all.end() && it->alloc <= until; ++it)
        if (own.count(it->stack.value) && it->freeRequested + kReleaseSlack >= r.releasedAt &&
            it->freeRequested <= until)
            r.allocations.push_back(uint32_t(it - in.all.begin()));
    std::sort(r.allocations.begin(), r.allocations.end());
    r.growthBytes = 0;
    for (uint32_t i : r.allocations)
        r.growthBytes += in.all[i].bytes, r.releasedAt = std::min(r.releasedAt, in.all[i].freeRequested);
    if (r.releasedAt > r.first) r.last = std::min(r.last, r.releasedAt - 1);
}

GrowthRegion makeRegion(const Inputs& in, const Candidate& c,
                        const std::unordered_map<uint32_t, StackKept>& stacks,
                        const std::vector<uint32_t>& chosen) {
    GrowthRegion r;
    r.kind = c.kind, r.scale = c.scale, r.releasedBy = c.releasedBy;
    r.first = UINT32_MAX, r.last = c.rise.top;
    int64_t bytes = 0;
    for (uint32_t s : chosen) bytes += stacks.at(s).grew, r.first = std::min(r.first, stacks.at(s).from);
    r.stacks = byGrowth(stacks, chosen);
    for (StackId s : r.stacks) {
        const auto& al = stacks.at(s.value).allocations;
        r.allocations.insert(r.allocations.end(), al.begin(), al.end());
    }
    std::sort(r.allocations.begin(), r.allocations.end());
    // the ramp starts with its first kept block; a tensor regrown (torch.cat) keeps only its last
    // version, so its ramp starts where its stack's floor began to rise
    if (r.allocations.size() >= 3) r.first = std::max(r.first, in.all[r.allocations.front()].alloc);
    r.growthBytes = uint64_t(bytes);
    if (c.kind == LeakKind::Leak && c.rise.releasedAt == kNoEvent) return r;
    uint32_t freed = kNoEvent; // the first free of the release
    for (uint32_t i : r.allocations) freed = std::min(freed, in.all[i].freeRequested);
    r.releasedAt = freed;
    r.last = std::max(r.last, freed > 0 && freed != kNoEvent ? freed - 1 : r.last);
    if (freed != kNoEvent && c.kind != LeakKind::Leak) addFreedWithIt(in, c.rise, r);
    return r;
}

// The regions a rise makes: none when no stack keeps memory repeatedly across it; for a release,
// one per line of the program that lets go of its stacks' memory.
std::vector<GrowthRegion> regionsOf(const Inputs& in, const Candidate& c) {
    auto stacks = keptAtTop(in, c.rise);
    if (stacks.empty()) return {};
    const std::vector<uint32_t> chosen = growingStacks(in, c.rise, stacks);
    int64_t bytes = 0;
    for (uint32_t s : chosen) bytes += stacks.at(s).grew;
    if (chosen.empty() || bytes < in.minRise / 2) return {};
    std::map<uint32_t, std::vector<uint32_t>> byLine; // the line that frees them -> stacks
    for (uint32_t s : chosen)
        byLine[c.rise.releasedAt == kNoEvent ? 0 : freeLine(in, stacks.at(s))].push_back(s);
    std::vector<GrowthRegion> out;
    for (auto& [line, group] : byLine) out.push_back(makeRegion(in, c, stacks, group));
    return out;
}

// Whether a rise's region is listed, and what released it: a leak shares its memory with the kept
// one that ends lower (keep one); a release whose own blocks are never freed let go of other memory
// (what it kept is the kept rise's); what the collector releases is a cycle.
bool judged(GrowthRegion& r, ReleaseCauses& causes, const Iterations& its,
            const std::vector<GrowthRegion>& out) {
    if (r.kind == LeakKind::Leak && std::any_of(out.begin(), out.end(), [&](const GrowthRegion& g) {
            return g.kind == LeakKind::Leak && g.stacks.front() == r.stacks.front();
        }))
        return false;
    if (r.kind != LeakKind::Accumulation) return true;
    if (r.releasedAt == kNoEvent) return false;
    const ReleaseCause cause = causes.of(r.allocations, its);
    r.kind = cause.garbageCollector ? LeakKind::Cycle : LeakKind::Accumulation;
    r.releasedBy = cause.text;
    return true;
}

} // namespace

// In the program's own units, when it has iterations: how many it spans, in how many it kept
// memory, the bytes kept each time; the ranking's cost is what it would keep over the whole trace.
void describeRegion(GrowthRegion& r, const std::vector<Allocation>& all, const Iterations& its,
                    uint32_t events) {
    const double span = std::max<uint32_t>(1, r.last - r.first);
    r.cost = double(r.growthBytes) * std::max(1.0, double(events) / span);
    if (its.count() < 3) return;
    r.iterations = uint32_t(its.indexOf(r.last) - its.indexOf(r.first) + 1);
    std::vector<size_t> made; // the iterations that made kept memory, ascending
    for (uint32_t i : r.allocations)
        if (made.empty() || made.back() != its.indexOf(all[i].alloc))
            made.push_back(its.indexOf(all[i].alloc));
    std::sort(made.begin(), made.end());
    made.erase(std::unique(made.begin(), made.end()), made.end());
    if (r.allocations.size() < 3) { // a tensor regrown every time keeps only its last version
        r.perIterationBytes = r.growthBytes / std::max<uint32_t>(1, r.iterations);
        return;
    }
    r.keptIn = uint32_t(made.size());
    r.perIterationBytes = r.growthBytes / std::max<uint32_t>(1, r.keptIn);
    std::vector<size_t> gaps;
    for (size_t i = 1; i < made.size(); ++i) gaps.push_back(made[i] - made[i - 1]);
    if (gaps.size() < 2) return;
    std::sort(gaps.begin(), gaps.end());
    if (2 * gaps.back() <= 3 * gaps.front())
        r.interval = uint32_t(gaps[gaps.size() / 2]); // within 50 % of each other
}

bool longerThanWorkingSet(uint64_t heldEvents, uint64_t events) {
    return kWorkingSetShare * heldEvents >= events;
}

int64_t minFloorRise(int64_t peakAllocated) {
    return std::max<int64_t>(peakAllocated / 100000, 4 << 10);
}

std::vector<GrowthRegion> floorRegions(const CaptureAnalysis& a, size_t device,
                                       const std::vector<Allocation>& all, const Iterations& its,
                                       const GraphPools& pools) {
    std::vector<GrowthRegion> out;
    const ReplayResult& rep = a.replay(device);
    const int64_t peak = std::max<int64_t>(1, a.summary(device).peak.allocated);
    const int64_t minRise = minFloorRise(peak);
    const FloorRises f = findFloorRises(rep.allocated, minRise);
    if (f.slices == 0) return out;
    const auto events = uint32_t(rep.allocated.size());
    // the program marked its steps: what it made before the first is its model and setup
    const uint32_t setupEnd = its.fromAnnotations && its.count() >= 3 ? its.starts.front() : 0;
    const Inputs in{setupEnd, a.capture(), a.trace(device), all, f, pools, minRise};
    ReleaseCauses causes(a.capture(), a.trace(device), all);
    std::vector<bool> shaped; // of `out`: from a working-set-shaped rise
    for (const Candidate& c : candidates(f, rep.allocated, its, minRise, causes))
        for (GrowthRegion& r : regionsOf(in, c)) {
            if (!judged(r, causes, its, out)) continue;
            r.significant = r.growthBytes * 100 >= uint64_t(peak);
            describeRegion(r, all, its, events);
            out.push_back(std::move(r));
            shaped.push_back(c.workingSet);
        }
    // Releases of the same memory at varying places are the garbage collector's doing, when no free
    // stack said so directly (three or more, no one line of the program letting go of them).
    for (GrowthRegion& g : out)
        if (g.kind == LeakKind::Accumulation && causes.variedSites(g.stacks.front()))
            g.kind = LeakKind::Cycle;
    std::vector<GrowthRegion> kept; // a working set's shape is growth only as a cycle's memory
    for (size_t i = 0; i < out.size(); ++i)
        if (!shaped[i] || out[i].kind == LeakKind::Cycle) kept.push_back(std::move(out[i]));
    return kept;
}

} // namespace vs
