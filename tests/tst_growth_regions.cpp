// Growth regions on synthetic training loops: a leak ramp, a sawtooth with two teeth released at
// epoch ends, a plateau, noise, nested scales, a bounded cache's teardown, releases by the garbage
// collector, by a function returning and at an annotated phase end, and step markers among DDP's
// per-bucket annotations.
#include "SyntheticLoop.h"
#include "TestData.h"
#include "analysis/RecorderPauses.h"
#include "analysis/categories/MarkedEvaluations.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/growth/RegionDiagnosis.h"
#include "analysis/peak/PhaseTable.h"
#include "analysis/replay/GraphPools.h"
#include "analysis/stacks/NativeOwner.h"
#include "load/OpenAnalysis.h"
#include "util/Format.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <random>

using namespace vs;
using vs::test::SyntheticLoop;

class TestGrowthRegions : public QObject {
    Q_OBJECT
  private slots:
    void oomOutsidePytorch();
    void oomFragmentation();
    void oomWorkingSetNamesTheCallLine();
    void leakRampIsOneRunRegion();
    void sawtoothWithTwoTeethIsAccumulation();
    void plateauHasNoRegion();
    void noiseHasNoRegion();
    void nestedScales();
    void boundedCacheTeardownIsNoAccumulation();
    void garbageCollectorReleaseIsCycle();
    void releaseVaryingPlacesIsCycle();
    void functionReturnAndPhaseEnd();
    void numberedStepMarkersBeatPerBucketAnnotations();
    void peakPerPhaseGate();
    void markedEvaluationRangesArePhases();
    void cudaLevelPyTorchIsNoLeak();
    void oneTimeOriginAcrossDevices();
    void epochsOfVaryingLength();
    void leakEveryKthIteration_data();
    void leakEveryKthIteration();
    void leakOnIrregularSteps();
    void nestedRequestTokenLeak();
    void nestedRequestTokenClean();
    void leakReleasedAtProgramEnd();
    void boundedQueueIsNoLeak();
    void cacheFilledEarlyIsNoLeak();
    void graphPoolIsNoLeak();
    void recorderPausesAreNotIterations();
    void reduceOverheadPoolIsNoGrowth();
    void rampKeptPastItsIterationIsNoTransient();
    void leakRateIsOverItsOwnSpan();
    void leakWhoseLineChurns();
    void leakUnderSawtoothListsBoth();
    void unfinishedToothIsTheAccumulation();
    void evaluationAccumulatesWithoutMarkers();
};

namespace {

std::shared_ptr<const CaptureAnalysis> analyse(SyntheticLoop& loop) {
    return CaptureAnalysis::analyse(loop.take());
}

GrowthRegions regionsOf(const CaptureAnalysis& a) {
    return findGrowthRegions(a, 0, pairAllocations(a.trace(0), a.replay(0)));
}

size_t countKind(const GrowthRegions& r, LeakKind k) {
    return size_t(std::count_if(r.regions.begin(), r.regions.end(), [&](auto& g) { return g.kind == k; }));
}

// `epochs` epochs of `steps` steps; every step keeps `kept` bytes from `keep`, released at each
// epoch's end from `release` (or never when `release` is null).
struct Sawtooth {
    int epochs = 2, steps = 10;
    uint64_t kept = 1 << 20;
};

void sawtooth(SyntheticLoop& loop, const Sawtooth& s, StackId keep, const StackId* release) {
    for (int e = 0; e < s.epochs; ++e) {
        std::vector<uint64_t> held;
        for (int i = 0; i < s.steps; ++i) loop.step(), held.push_back(loop.alloc(s.kept, keep));
        if (release)
            for (auto it = held.rbegin(); it != held.rend(); ++it) loop.free(*it, s.kept, *release);
    }
}

// The one leak region the floor finds, or null.
const GrowthRegion* onlyLeak(const GrowthRegions& r) {
    const GrowthRegion* out = nullptr;
    for (const auto& g : r.regions)
        if (g.kind == LeakKind::Leak) {
            if (out) return nullptr;
            out = &g;
        }
    return out;
}

// No leak region and a diagnosis of none.
bool nothingGrows(SyntheticLoop& loop) {
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    return countKind(r, LeakKind::Leak) == 0 && diagnoseLeaks(*a, 0).kind == LeakKind::None;
}

// A serving loop: `requests` requests of `tokens` forward passes; each token's KV entry lives until
// its request ends, and each request keeps `kept` bytes from `keep` (0: the clean twin).
void servingLoop(SyntheticLoop& loop, int requests, int tokens, uint64_t kept, StackId kv, StackId keep) {
    for (int r = 0; r < requests; ++r) {
        std::vector<uint64_t> cache;
        for (int t = 0; t < tokens; ++t) loop.step(), cache.push_back(loop.alloc(256 << 10, kv));
        for (auto it = cache.rbegin(); it != cache.rend(); ++it) loop.free(*it, 256 << 10, kv);
        if (kept) loop.alloc(kept, keep);
    }
}

} // namespace

void TestGrowthRegions::leakRampIsOneRunRegion() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"cache_features", 31}, {"train_step", 22}, {"main", 50}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}})); // the model: warm-up, not growth
    for (int i = 0; i < 30; ++i) loop.step(), loop.alloc(512 * 64, keep);
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(r.iterations.count(), size_t(30));
    QCOMPARE(countKind(r, LeakKind::Leak), size_t(1));
    const GrowthRegion& g = r.regions.front();
    QCOMPARE(g.kind, LeakKind::Leak);
    QCOMPARE(g.scale, RegionScale::Run);
    QCOMPARE(g.allocations.size(), size_t(30)); // all alive at the end
    QCOMPARE(g.growthBytes, uint64_t(30 * 512 * 64));
    QCOMPARE(g.stacks.front(), keep);
    QCOMPARE(g.releasedAt, kNoEvent);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    // the evidence is the region's own blocks (not the model's), none of them freed; the sentence
    // gives what every iteration kept
    QVERIFY2(rep.evidence.find("40 blocks") == std::string::npos &&
                 rep.evidence.starts_with("30 blocks, 960.00 KiB, made from ") &&
                 rep.evidence.find("none of these blocks is freed before the end") != std::string::npos,
             rep.evidence.c_str());
    QVERIFY2(rep.summary.find("32.00 KiB per '") != std::string::npos, rep.summary.c_str());
    LeakQuery q;
    q.region = g;
    const LeakReport clicked = diagnoseLeaks(*a, 0, q);
    QCOMPARE(clicked.kind, LeakKind::Leak);
    QCOMPARE(clicked.growthBytes, g.growthBytes);
    QCOMPARE(clicked.groups.front().stack, keep);
    QVERIFY2(clicked.summary.find("cache_features (train.py:31)") != std::string::npos,
             clicked.summary.c_str());
    // its own figures: allocated memory at its ends would count the model and the step's temporaries
    const LeakInputs in = prepareLeakInputs(*a, 0);
    auto at = [&](uint32_t k) { return fixed(a->secondsAt(0, in.lifetimes()[k].alloc), 3) + " s"; };
    const std::string made = "made from " + at(g.allocations.front()) + " to " + at(g.allocations.back());
    QVERIFY2(clicked.evidence.starts_with("30 blocks, 960.00 KiB, " + made) &&
                 clicked.evidence.find("none of these blocks is freed before the end") != std::string::npos,
             clicked.evidence.c_str());
}

void TestGrowthRegions::sawtoothWithTwoTeethIsAccumulation() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"training_step", 17}, {"fit", 80}});
    const StackId clear = loop.stack({{"on_epoch_end", 40}, {"fit", 85}});
    sawtooth(loop, {2, 10, 1 << 20}, keep, &clear);
    for (int i = 0; i < 3; ++i) loop.step(); // a flat tail
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(2));
    for (const auto& g : r.regions) {
        QCOMPARE(g.kind, LeakKind::Accumulation);
        QCOMPARE(g.scale, RegionScale::Phase);
        QCOMPARE(g.allocations.size(), size_t(10)); // the epoch's last block is freed with the rest
        QCOMPARE(g.growthBytes, uint64_t(10 << 20));
        QVERIFY(g.releasedAt != kNoEvent && g.releasedAt > g.last);
        QCOMPARE(a->trace(0).action[g.releasedAt], Action::FreeRequested);
        QVERIFY2(g.releasedBy.find("on_epoch_end (train.py:40)") != std::string::npos, g.releasedBy.c_str());
    }
    // the two teeth are apart, in time order once sorted
    auto teeth = r.regions;
    std::sort(teeth.begin(), teeth.end(), [](auto& x, auto& y) { return x.first < y.first; });
    QVERIFY(teeth[0].releasedAt < teeth[1].first);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Accumulation);
    QCOMPARE(rep.growthBytes, uint64_t(10 << 20));
    QVERIFY(rep.region.has_value());
    QCOMPARE(rep.groups.front().stack, keep);
    QVERIFY2(rep.summary.find("training_step (train.py:17)") != std::string::npos, rep.summary.c_str());
    QVERIFY2(rep.summary.find("2 times") != std::string::npos, rep.summary.c_str());
    QVERIFY(!rep.evidence.empty());
    // explaining the second tooth (a click on it) gives its own window
    LeakQuery q;
    q.region = teeth[1];
    const LeakReport second = diagnoseLeaks(*a, 0, q);
    QCOMPARE(second.kind, LeakKind::Accumulation);
    QCOMPARE(second.first, teeth[1].first);
    QCOMPARE(second.last, teeth[1].last);
    // its top group is the region's own blocks, the figures its sentence gives
    QCOMPARE(second.groups.front().bytes, teeth[1].growthBytes);
    QCOMPARE(size_t(second.groups.front().count), teeth[1].allocations.size());
}

void TestGrowthRegions::plateauHasNoRegion() {
    SyntheticLoop loop;
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < 40; ++i) loop.step(8 << 20);
    auto a = analyse(loop);
    QVERIFY(regionsOf(*a).regions.empty());
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::None);
    QVERIFY2(rep.evidence.find("40") != std::string::npos, rep.evidence.c_str()); // never empty
}

void TestGrowthRegions::noiseHasNoRegion() {
    SyntheticLoop loop;
    std::mt19937 rng(7);
    const StackId a1 = loop.stack({{"forward", 30}}), a2 = loop.stack({{"backward", 35}});
    std::vector<std::pair<uint64_t, uint64_t>> prev; // freed one step later (gradients)
    for (int i = 0; i < 50; ++i) {
        loop.step();
        for (auto [at, bytes] : prev) loop.free(at, bytes, a2);
        prev.clear();
        const int n = int(rng() % 5);
        for (int k = 0; k < n; ++k) {
            const uint64_t bytes = 512 * (1 + rng() % 4096);
            if (rng() % 2)
                loop.free(loop.alloc(bytes, a1), bytes, a1);
            else
                prev.emplace_back(loop.alloc(bytes, a2), bytes);
        }
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QVERIFY2(r.regions.empty(),
             r.regions.empty() ? "" : std::string(leakKindName(r.regions[0].kind)).c_str());
    QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::None);
}

void TestGrowthRegions::nestedScales() {
    // a per-iteration ramp (3 activations), a per-epoch accumulation, a small leak over the run
    SyntheticLoop loop;
    const StackId act = loop.stack({{"forward", 30}}), keep = loop.stack({{"collect", 60}});
    const StackId clear = loop.stack({{"end_epoch", 70}}), leak = loop.stack({{"remember", 90}});
    for (int e = 0; e < 3; ++e) {
        std::vector<uint64_t> held;
        for (int i = 0; i < 8; ++i) {
            loop.step();
            uint64_t x[3];
            for (auto& v : x) v = loop.alloc(4 << 20, act);
            for (auto v : x) loop.free(v, 4 << 20, act);
            held.push_back(loop.alloc(2 << 20, keep));
            loop.alloc(64 << 10, leak);
        }
        for (auto it = held.rbegin(); it != held.rend(); ++it) loop.free(*it, 2 << 20, clear);
    }
    auto a = analyse(loop);
    const auto all = pairAllocations(a->trace(0), a->replay(0));
    const auto r = findGrowthRegions(*a, 0, all);
    QCOMPARE(countKind(r, LeakKind::Leak), size_t(1));
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(3));
    const auto leakIt =
        std::find_if(r.regions.begin(), r.regions.end(), [](auto& g) { return g.kind == LeakKind::Leak; });
    QCOMPARE(leakIt->scale, RegionScale::Run);
    QCOMPARE(leakIt->stacks.front(), leak);
    // inside one iteration of the second epoch: the activations' rise
    const auto& acc = *std::find_if(r.regions.begin(), r.regions.end(),
                                    [](auto& g) { return g.kind == LeakKind::Accumulation; });
    // just after an iteration's start in the middle of the epoch: its three activations lie ahead
    const size_t k = r.iterations.indexOf((acc.first + acc.last) / 2);
    const uint32_t middle = r.iterations.starts[k - 1] + 1;
    const auto ramp = iterationRamp(*a, 0, all, r.iterations, middle);
    QVERIFY(ramp.has_value());
    QCOMPARE(ramp->kind, LeakKind::Transient);
    QVERIFY(ramp->first >= acc.first && ramp->last <= acc.last + 1);
    QVERIFY(ramp->growthBytes >= uint64_t(12 << 20)); // three activations at the top
    // a click picks the narrowest listed region holding it: the epoch's, not the run's
    const size_t at = regionAt(r, middle);
    QVERIFY(at != kNoRegion);
    QCOMPARE(r.regions[at].kind, LeakKind::Accumulation);
}

void TestGrowthRegions::boundedCacheTeardownIsNoAccumulation() {
    // keeps its last 5 entries, trimmed every step, all dropped at the end
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"cache_put", 12}}), drop = loop.stack({{"teardown", 99}});
    std::deque<uint64_t> cache;
    for (int i = 0; i < 40; ++i) {
        loop.step();
        cache.push_back(loop.alloc(1 << 20, keep));
        if (cache.size() > 5) loop.free(cache.front(), 1 << 20, keep), cache.pop_front();
    }
    for (uint64_t v : cache) loop.free(v, 1 << 20, drop);
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(0));
    QCOMPARE(countKind(r, LeakKind::Leak), size_t(0));
}

void TestGrowthRegions::garbageCollectorReleaseIsCycle() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"make_cycle", 44}}), gc = loop.stack({{"train", 60}});
    for (int e = 0; e < 3; ++e) {
        std::vector<uint64_t> held;
        for (int i = 0; i < 10; ++i) loop.step(), held.push_back(loop.alloc(1 << 20, keep));
        loop.annotate("gc.collect", true);
        for (uint64_t v : held) loop.free(v, 1 << 20, gc);
        loop.annotate("gc.collect", false);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(countKind(r, LeakKind::Cycle), size_t(3));
    QVERIFY(r.regions.front().releasedBy.find("garbage collector") != std::string::npos);
    QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::Cycle); // gc.collect marks no iterations
}

void TestGrowthRegions::releaseVaryingPlacesIsCycle() {
    // no gc marks, but the same memory is let go at a different line each time: the collector
    // ... while another stack's memory, let go at one line each time, stays an accumulation
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"make_cycle", 44}}), collect = loop.stack({{"collect_logits", 60}});
    const StackId clear = loop.stack({{"on_epoch_end", 70}});
    for (int e = 0; e < 3; ++e) {
        std::vector<uint64_t> held, logits;
        for (int i = 0; i < 10; ++i)
            loop.step(), held.push_back(loop.alloc(1 << 20, keep)),
                logits.push_back(loop.alloc(2 << 20, collect));
        const StackId somewhere = loop.stack({{"unrelated", uint32_t(100 + e)}});
        for (uint64_t v : held) loop.free(v, 1 << 20, somewhere);
        for (uint64_t v : logits) loop.free(v, 2 << 20, clear);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(countKind(r, LeakKind::Cycle), size_t(3));
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(3));
    for (const auto& g : r.regions) QCOMPARE(g.kind == LeakKind::Cycle, g.stacks.front() == keep);
}

void TestGrowthRegions::functionReturnAndPhaseEnd() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"evaluate", 25}, {"main", 50}});
    const StackId after = loop.stack({{"main", 51}});
    Sawtooth s{2, 10, 1 << 20};
    sawtooth(loop, s, keep, &after);
    auto a = analyse(loop);
    auto r = regionsOf(*a);
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(2));
    QVERIFY2(r.regions.front().releasedBy.find("evaluate() returned") == 0,
             r.regions.front().releasedBy.c_str());

    SyntheticLoop marked; // the same with numbered steps and an 'epoch' phase marker
    const StackId keep2 = marked.stack({{"training_step", 17}});
    const StackId clear2 = marked.stack({{"on_epoch_end", 40}});
    int n = 0;
    for (int e = 0; e < 3; ++e) {
        marked.annotate("epoch");
        std::vector<uint64_t> held;
        for (int i = 0; i < 10; ++i) {
            marked.annotate(("ProfilerStep#" + std::to_string(n++)).c_str());
            marked.step(), held.push_back(marked.alloc(1 << 20, keep2));
        }
        for (auto it = held.rbegin(); it != held.rend(); ++it) marked.free(*it, 1 << 20, clear2);
    }
    auto b = analyse(marked);
    r = regionsOf(*b);
    QCOMPARE(r.iterations.marker, std::string("ProfilerStep#"));
    QVERIFY(r.iterations.fromAnnotations);
    QCOMPARE(r.iterations.phaseMarker, std::string("epoch"));
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(3));
    for (const auto& g : r.regions)
        QVERIFY2(g.releasedBy.find("the end of ") == 0 && g.releasedBy.find("'epoch'") != std::string::npos,
                 g.releasedBy.c_str());
    const LeakReport rep = diagnoseLeaks(*b, 0);
    QVERIFY2(rep.summary.find("each 'epoch'") != std::string::npos, rep.summary.c_str());
}

void TestGrowthRegions::numberedStepMarkersBeatPerBucketAnnotations() {
    // DDP: several all-reduce annotations per step, bunched at its end; numbered profiler steps
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"keep_slice", 33}});
    for (int i = 0; i < 30; ++i) {
        loop.annotate(("ProfilerStep#" + std::to_string(i)).c_str());
        for (int k = 0; k < 6; ++k) loop.step();
        loop.alloc(256 << 10, keep);
        for (int k = 0; k < 4; ++k) loop.annotate("nccl:all_reduce"), loop.step(4096);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(r.iterations.marker, std::string("ProfilerStep#"));
    QCOMPARE(r.iterations.count(), size_t(30));
    QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::Leak);
}

void TestGrowthRegions::peakPerPhaseGate() {
    // epochs whose peak rises by 10 % each (a leak across epochs), the first epoch higher (warm-up)
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"remember", 9}});
    for (int e = 0; e < 4; ++e) {
        loop.annotate("epoch");
        if (e == 0) loop.alloc(100 << 20, loop.stack({{"build_model", 10}}));
        for (int i = 0; i < 5; ++i) loop.annotate("step"), loop.step(e == 0 ? 64 << 20 : 8 << 20);
        loop.alloc(12 << 20, keep);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const PhaseTable p = phaseTable(a->capture(), a->trace(0), a->replay(0), r.iterations);
    QCOMPARE(p.epochMarker, std::string("epoch"));
    QCOMPARE(p.rows.size(), size_t(4)); // the first epoch begins at the first event
    for (const PhaseRow& row : p.rows) QCOMPARE(int(row.kind), int(PhaseKind::Epoch));
    QCOMPARE(p.rows[3].peak, int64_t(148) << 20);
    QCOMPARE(p.rows[3].previousPeak, int64_t(136) << 20);
    size_t at = 0;
    const double rise = p.worstRisePercent(&at);
    // peaks (MiB): 164 (warm-up), 100+12+12 = 124, 136, 148 (each epoch's new block at its end);
    // 124 -> 136 is the largest rise counted; 164 -> 124 is not counted
    QVERIFY2(std::abs(rise - 100.0 * 12 / 124) < 0.001, std::to_string(rise).c_str());
    QCOMPARE(at, size_t(2));
}

void TestGrowthRegions::markedEvaluationRangesArePhases() {
    // PyTorch's snapshot of a loop that marks its epochs and evaluations with record_function ranges:
    // each evaluation (outputs kept until it ends, run straight into the next epoch's training with no
    // Python frame between) is a row of its own, and each epoch's row ends where the evaluation begins
    SyntheticLoop loop;
    const StackId out = loop.stack({{"evaluate", 40}, {"main", 60}});
    for (int e = 0; e < 3; ++e) {
        loop.annotate("epoch");
        for (int i = 0; i < 6; ++i) loop.annotate("step"), loop.step(uint64_t(8 + 4 * e) << 20);
        loop.annotate("epoch", false);
        loop.annotate("evaluate");
        std::vector<uint64_t> kept;
        for (int i = 0; i < 5; ++i) kept.push_back(loop.alloc(16 << 20, out)), loop.step(2 << 20);
        for (uint64_t k : kept) loop.free(k, 16 << 20, out);
        loop.annotate("evaluate", false);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const PhaseTable p = phaseTable(a->capture(), a->trace(0), a->replay(0), r.iterations);
    std::vector<std::pair<int, int64_t>> rows;
    // (the step markers are too irregular to be the iterations: the epochs are, each a row of its own)
    for (const PhaseRow& row : p.rows) rows.emplace_back(int(row.kind), row.peak);
    const int ep = int(PhaseKind::Step), ev = int(PhaseKind::Evaluation);
    const std::vector<std::pair<int, int64_t>> want = {{ep, 8 << 20},  {ev, 82 << 20}, {ep, 12 << 20},
                                                       {ev, 82 << 20}, {ep, 16 << 20}, {ev, 82 << 20}};
    QCOMPARE(rows, want);
    QVERIFY(namesEvaluation("validation_epoch") && namesEvaluation("Evaluate") &&
            namesEvaluation("run_eval"));
    QVERIFY(!namesEvaluation("epoch") && !namesEvaluation("retrieval") && !namesEvaluation("step"));
}

void TestGrowthRegions::cudaLevelPyTorchIsNoLeak() {
    // PyTorch recorded by the CUPTI agent on the H200: its caching allocator's segments stay, by design
    for (const char* name : {"torch_plain.vscap", "torch_two_devices.vscap", "torch_async.vscap"}) {
        const auto a = openAnalysis((vs::test::samplesDir() + "/../cuda/" + name).toStdString());
        for (size_t d = 0; d < a->deviceCount(); ++d) {
            const LeakReport rep = diagnoseLeaks(*a, d);
            QVERIFY2(rep.kind == LeakKind::None, rep.summary.c_str());
            QVERIFY2(rep.summary.find("PyTorch's") != std::string::npos, rep.summary.c_str());
            QVERIFY(!rep.groups.empty());
            const NativeOwner owner = nativeOwner(a->capture(), rep.groups.front().stack);
            QVERIFY(owner == NativeOwner::TorchCache || owner == NativeOwner::TorchAsync);
            QCOMPARE(rep.growthBytes, uint64_t(0));
        }
    }
    // the program's own cudaMalloc that is never freed is still the user's leak
    const auto leak = openAnalysis((vs::test::samplesDir() + "/../cuda/leak.vscap").toStdString());
    const LeakReport rep = diagnoseLeaks(*leak, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(nativeOwner(leak->capture(), rep.groups.front().stack), NativeOwner::User);
}

void TestGrowthRegions::oneTimeOriginAcrossDevices() {
    // two GPUs whose traces start 0.35 s apart: every time is seconds since the earlier one
    const auto a = openAnalysis((vs::test::samplesDir() + "/../cuda/torch_two_devices.vscap").toStdString());
    QCOMPARE(a->deviceCount(), size_t(2));
    const int64_t first0 = a->trace(0).timeUs.front(), first1 = a->trace(1).timeUs.front();
    QCOMPARE(a->originUs(), std::min(first0, first1));
    const size_t later = first0 > first1 ? 0 : 1;
    QVERIFY(a->secondsAt(later, 0) > 0.1);
    QCOMPARE(a->secondsAt(1 - later, 0), 0.0);
    // the CLI reports the later device's window on it (what the GUI's shading uses)
    QProcess p;
    p.start(QStringLiteral(VRAMSCOPE_CLI),
            {"leaks", vs::test::samplesDir() + "/../cuda/torch_two_devices.vscap", "--device",
             QString::number(a->trace(later).device), "--json"});
    QVERIFY(p.waitForFinished(30000));
    const auto window = QJsonDocument::fromJson(p.readAllStandardOutput()).object()["window"].toObject();
    QVERIFY2(window["from_s"].toDouble() >= a->secondsAt(later, 0) - 1e-6,
             qPrintable(QString::number(window["from_s"].toDouble())));
}

void TestGrowthRegions::epochsOfVaryingLength() {
    // the auto window ends at the highest tooth, mid-run; the memory is still released each epoch
    for (const std::vector<int>& lengths : {std::vector<int>{8, 14, 10}, std::vector<int>{8, 10, 14}}) {
        SyntheticLoop loop;
        const StackId keep = loop.stack({{"training_step", 17}}), clear = loop.stack({{"on_epoch_end", 40}});
        for (int steps : lengths) {
            std::vector<uint64_t> held;
            for (int i = 0; i < steps; ++i) loop.step(), held.push_back(loop.alloc(1 << 20, keep));
            for (auto it = held.rbegin(); it != held.rend(); ++it) loop.free(*it, 1 << 20, clear);
        }
        auto a = analyse(loop);
        const LeakReport rep = diagnoseLeaks(*a, 0);
        QVERIFY2(rep.kind == LeakKind::Accumulation, rep.summary.c_str());
        QVERIFY(rep.region.has_value());                       // what the GUI selects on open
        QCOMPARE(rep.region->growthBytes, uint64_t(14 << 20)); // the longest epoch costs the most
    }
}

namespace {

// `steps` steps: the same line makes four 16 MiB outputs each step and frees them within it, except
// one every `every`-th step (0: none), kept "to plot later".
std::shared_ptr<const CaptureAnalysis> churningLine(StackId& out, int steps, int every) {
    SyntheticLoop loop;
    out = loop.stack({{"predict", 31}, {"train_step", 22}, {"main", 50}});
    loop.alloc(32 << 20, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < steps; ++i) {
        loop.step();
        uint64_t made[4];
        for (auto& v : made) v = loop.alloc(16 << 20, out);
        for (int k = 0; k < 4; ++k)
            if (!(k == 0 && every && i % every == 0)) loop.free(made[k], 16 << 20, out);
    }
    return analyse(loop);
}

const GrowthFinding* findingOf(const GrowthRegions& r, LeakKind kind) {
    for (const auto& f : r.findings)
        if (r.regionOf(f).kind == kind) return &f;
    return nullptr;
}

} // namespace

// Issue 45: a leak whose line also makes short-lived memory. The stack's own churn (48 MiB a step)
// is larger than what it keeps (one block every 8th step), yet the blocks it keeps were made across
// the run and are never freed: a leak at that line. Its clean twin keeps nothing.
void TestGrowthRegions::leakWhoseLineChurns() {
    StackId out;
    const auto a = churningLine(out, 48, 8);
    const auto r = regionsOf(*a);
    const GrowthFinding* leak = findingOf(r, LeakKind::Leak);
    QVERIFY(leak != nullptr);
    QCOMPARE(&r.findings.front(), leak); // the diagnosis
    const GrowthRegion& g = r.regionOf(*leak);
    QCOMPARE(g.stacks.front(), out);
    QCOMPARE(g.allocations.size(), size_t(6)); // steps 0, 8, ..., 40
    QCOMPARE(g.growthBytes, uint64_t(6 * (16 << 20)));
    QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::Leak);
    const auto clean = churningLine(out, 48, 0);
    QVERIFY(regionsOf(*clean).findings.empty());
    QCOMPARE(diagnoseLeaks(*clean, 0).kind, LeakKind::None);
}

// Issue 45: seven epochs collect ten 4 MiB features each and clear them at the epoch's end (a
// sawtooth by design), while a pool keeps the first of every epoch's (the same line's blocks): the
// floor rises under the teeth. Both are listed, the leak first; the fixed twin has only the sawtooth.
void TestGrowthRegions::leakUnderSawtoothListsBoth() {
    for (bool leaking : {true, false}) {
        SyntheticLoop loop;
        const StackId collect = loop.stack({{"collect_features", 30}, {"fit", 80}});
        const StackId clear = loop.stack({{"on_epoch_end", 40}, {"fit", 85}});
        for (int e = 0; e < 7; ++e) {
            std::vector<uint64_t> held;
            for (int i = 0; i < 10; ++i) loop.step(), held.push_back(loop.alloc(4 << 20, collect));
            for (size_t k = held.size(); k-- > (leaking ? 1 : 0);) loop.free(held[k], 4 << 20, clear);
        }
        auto a = analyse(loop);
        const auto r = regionsOf(*a);
        const GrowthFinding* acc = findingOf(r, LeakKind::Accumulation);
        QVERIFY(acc != nullptr);
        QVERIFY2(acc->repeats >= 6, std::to_string(acc->repeats).c_str()); // one finding for the teeth
        QCOMPARE(r.regionOf(*acc).stacks.front(), collect);
        const GrowthFinding* leak = findingOf(r, LeakKind::Leak);
        QCOMPARE(leak != nullptr, leaking);
        QCOMPARE(r.findings.size(), size_t(leaking ? 2 : 1));
        QCOMPARE(diagnoseLeaks(*a, 0).kind, leaking ? LeakKind::Leak : LeakKind::Accumulation);
        if (!leaking) continue;
        QCOMPARE(&r.findings.front(), leak);
        QCOMPARE(r.regionOf(*leak).stacks.front(), collect);
        QCOMPARE(r.regionOf(*leak).growthBytes, uint64_t(7 * (4 << 20)));
    }
}

// Issue 46: the capture ends (an OOM, a stopped job) in the middle of an epoch whose list is cleared
// at each epoch's end: what the current epoch collected so far is that sawtooth's next tooth, one
// accumulation finding with the teeth before it, not a leak (the OOM's cause reads it the same way).
void TestGrowthRegions::unfinishedToothIsTheAccumulation() {
    SyntheticLoop loop;
    const StackId collect = loop.stack({{"collect_features", 30}, {"fit", 80}});
    const StackId clear = loop.stack({{"on_epoch_end", 40}, {"fit", 85}});
    for (int e = 0; e < 3; ++e) {
        std::vector<uint64_t> held;
        for (int i = 0; i < (e < 2 ? 10 : 14); ++i) loop.step(), held.push_back(loop.alloc(4 << 20, collect));
        if (e < 2)
            for (uint64_t k : held) loop.free(k, 4 << 20, clear);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QCOMPARE(findingOf(r, LeakKind::Leak), nullptr);
    const GrowthFinding* acc = findingOf(r, LeakKind::Accumulation);
    QVERIFY(acc != nullptr);
    QCOMPARE(r.findings.size(), size_t(1));
    QCOMPARE(acc->repeats, size_t(3));
    QCOMPARE(r.regionOf(*acc).growthBytes, uint64_t(14 * (4 << 20))); // the unfinished tooth, the largest
    QCOMPARE(r.regionOf(*acc).releasedAt, kNoEvent);
}

// Issue 45: between training epochs an evaluation with no marker of its own collects every batch's
// outputs and concatenates them: memory climbs far above a training step's and falls when it ends,
// each evaluation a fortieth of the run. An accumulation, found at the collecting line; the twin
// that moves each output to the host has no finding.
void TestGrowthRegions::evaluationAccumulatesWithoutMarkers() {
    for (bool collects : {true, false}) {
        SyntheticLoop loop;
        const StackId act = loop.stack({{"forward", 30}, {"train_step", 22}, {"main", 90}});
        const StackId batch = loop.stack({{"forward", 30}, {"evaluate", 60}, {"main", 95}});
        const StackId keep = loop.stack({{"evaluate", 61}, {"main", 95}});
        const StackId cat = loop.stack({{"evaluate", 64}, {"main", 95}});
        for (int epoch = 0; epoch < 4; ++epoch) {
            for (int s = 0; s < 100; ++s) loop.step(), loop.free(loop.alloc(8 << 20, act), 8 << 20, act);
            std::vector<uint64_t> outputs;
            for (int b = 0; b < 20; ++b) {
                loop.free(loop.alloc(8 << 20, batch), 8 << 20, batch);
                const uint64_t o = loop.alloc(4 << 20, keep);
                collects ? outputs.push_back(o) : loop.free(o, 4 << 20, keep);
            }
            if (!collects) continue;
            const uint64_t all = loop.alloc(80 << 20, cat);
            for (uint64_t o : outputs) loop.free(o, 4 << 20, keep);
            loop.free(all, 80 << 20, cat);
        }
        auto a = analyse(loop);
        const auto r = regionsOf(*a);
        QVERIFY(r.iterations.count() >= 300); // the training steps; evaluation has none
        const GrowthFinding* acc = findingOf(r, LeakKind::Accumulation);
        QCOMPARE(acc != nullptr, collects);
        QCOMPARE(r.findings.size(), size_t(collects ? 1 : 0));
        if (!collects) {
            QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::None);
            continue;
        }
        QCOMPARE(r.regionOf(*acc).stacks.front(), keep);
        QVERIFY2(acc->repeats >= 3, std::to_string(acc->repeats).c_str());
        const LeakReport rep = diagnoseLeaks(*a, 0);
        QCOMPARE(rep.kind, LeakKind::Accumulation);
        QVERIFY2(rep.summary.find("evaluate (train.py:61)") != std::string::npos, rep.summary.c_str());
    }
}

// OOM causes (issue 46), from the allocator's figures at the failed request.
void TestGrowthRegions::oomOutsidePytorch() {
    // 2 GiB of PyTorch's on an 80 GiB device with 512 MiB free: 77.5 GiB is someone else's
    SyntheticLoop loop;
    loop.capture().deviceInfo.push_back({0, "GPU", uint64_t(80) << 30});
    loop.alloc(uint64_t(2) << 30, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < 8; ++i) loop.step(64 << 20);
    loop.oom(1 << 30, 512 << 20);
    const LeakReport rep = diagnoseLeaks(*analyse(loop), 0);
    QCOMPARE(rep.kind, LeakKind::Oom);
    QCOMPARE(rep.oom->cause, OomCause::OutsidePytorch);
    QCOMPARE(rep.oom->outside(), (int64_t(80) << 30) - (int64_t(2) << 30) - (int64_t(512) << 20));
    QVERIFY2(rep.nextStep.find("other processes") != std::string::npos, rep.nextStep.c_str());
}

void TestGrowthRegions::oomFragmentation() {
    // one 1 GiB segment cut into eight 128 MiB blocks, every other one freed: 512 MiB free inside the
    // reserve, no block over 128 MiB; a 256 MiB request with 100 MiB left on the device fails
    SyntheticLoop loop;
    const StackId s = loop.stack({{"shard", 22}});
    const uint64_t base = SyntheticLoop::kBase + (uint64_t(64) << 30), piece = 128 << 20;
    loop.raw(Action::SegmentAlloc, base, 8 * piece, s);
    for (uint64_t k = 0; k < 8; ++k) loop.raw(Action::Alloc, base + k * piece, piece, s);
    for (uint64_t k = 1; k < 8; k += 2)
        loop.raw(Action::FreeRequested, base + k * piece, piece, s),
            loop.raw(Action::FreeCompleted, base + k * piece, piece, s);
    loop.oom(256 << 20, 100 << 20);
    const LeakReport rep = diagnoseLeaks(*analyse(loop), 0);
    QCOMPARE(rep.kind, LeakKind::Oom);
    QCOMPARE(rep.oom->cause, OomCause::Fragmentation);
    QCOMPARE(rep.oom->reservedFree(), int64_t(4 * piece));
    QCOMPARE(rep.oom->largestFree, piece);
    QVERIFY2(rep.nextStep.find("expandable_segments:True") != std::string::npos, rep.nextStep.c_str());
}

void TestGrowthRegions::oomWorkingSetNamesTheCallLine() {
    // steady steps, then a step whose forward pass (three layers, three stacks) does not fit: the
    // holder is the line that called the model, one holder for the three layers
    SyntheticLoop loop;
    loop.alloc(uint64_t(1) << 30, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < 10; ++i) loop.annotate("step"), loop.step(64 << 20);
    loop.annotate("step");
    // the program marks its batch size (vramscope.mark("batch_size", 256)) as the schedule raises it
    Capture& c = loop.capture();
    c.annotations.push_back({0, loop.t().timeUs.back() + 1, true, c.strings.intern("batch_size"), 256});
    for (uint32_t layer = 0; layer < 3; ++layer)
        loop.alloc(512 << 20,
                   loop.stackIn({{"forward", "/home/me/model.py", 40 + layer},
                                 {"_call_impl", "/usr/lib/python3/torch/nn/modules/module.py", 1750},
                                 {"forward", "/home/me/model.py", 60},
                                 {"_call_impl", "/usr/lib/python3/torch/nn/modules/module.py", 1750},
                                 {"train_step", "/home/me/train.py", 30},
                                 {"main", "/home/me/train.py", 90}}));
    loop.oom(uint64_t(2) << 30, 300 << 20);
    const LeakReport rep = diagnoseLeaks(*analyse(loop), 0);
    QCOMPARE(rep.kind, LeakKind::Oom);
    QCOMPARE(rep.oom->cause, OomCause::WorkingSet);
    QVERIFY(!rep.oom->holders.empty());
    QCOMPARE(rep.oom->holders.front().bytes, int64_t(1536) << 20);
    QVERIFY2(rep.summary.find("train_step (train.py:30)") != std::string::npos, rep.summary.c_str());
    QVERIFY2(rep.nextStep.find("batch size") != std::string::npos, rep.nextStep.c_str());
    // at least (1.5 GiB made + 2 GiB asked) / 256 = 14 MiB a sample; 1.5 GiB + 300 MiB free hold 131
    QCOMPARE(rep.oom->batch, int64_t(256));
    QCOMPARE(rep.oom->perSampleAtLeast, uint64_t(14) << 20);
    QCOMPARE(rep.oom->batchAtMost, uint64_t(131));
    QVERIFY2(rep.nextStep.find("a batch of at most 131 fits") != std::string::npos, rep.nextStep.c_str());
}

QTEST_GUILESS_MAIN(TestGrowthRegions)
#include "tst_growth_regions.moc"

void TestGrowthRegions::leakEveryKthIteration_data() {
    QTest::addColumn<int>("k");
    QTest::newRow("every step") << 1;
    QTest::newRow("every 3rd") << 3;
    QTest::newRow("every 10th") << 10;
    QTest::newRow("every 40th") << 40;
}

// A leak on every k-th step only (validation steps, logging steps, failed checks): the floor rises
// in steps k iterations apart, and the region says so in the program's unit.
void TestGrowthRegions::leakEveryKthIteration() {
    QFETCH(int, k);
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"keep_failure", 44}, {"train", 80}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    const int steps = 40 * k;
    for (int i = 1; i <= steps; ++i) {
        loop.step(4 << 20);
        if (i % k == 0) loop.alloc(1 << 20, keep);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const GrowthRegion* g = onlyLeak(r);
    QVERIFY(g);
    QCOMPARE(g->stacks.front(), keep);
    QCOMPARE(g->growthBytes, uint64_t(40) << 20);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(rep.groups.front().stack, keep);
    QVERIFY2(rep.summary.find("keep_failure (train.py:44)") != std::string::npos, rep.summary.c_str());
    if (k > 1) {
        QCOMPARE(g->keptIn, 40u);
        QCOMPARE(g->interval, uint32_t(k));
        const std::string every = "every " + std::to_string(k);
        QVERIFY2(rep.summary.find(every) != std::string::npos, rep.summary.c_str());
    }
}

void TestGrowthRegions::leakOnIrregularSteps() {
    SyntheticLoop loop;
    std::mt19937 rng(11);
    const StackId keep = loop.stack({{"on_error", 61}, {"train", 80}});
    loop.alloc(32 << 20, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < 400; ++i) {
        loop.step(2 << 20);
        if (rng() % 12 == 0) loop.alloc(1 << 20, keep);
    }
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const GrowthRegion* g = onlyLeak(r);
    QVERIFY(g);
    QCOMPARE(g->stacks.front(), keep);
    QCOMPARE(g->interval, 0u);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QVERIFY2(rep.summary.find("irregularly") != std::string::npos, rep.summary.c_str());
}

void TestGrowthRegions::nestedRequestTokenLeak() {
    SyntheticLoop loop;
    const StackId kv = loop.stack({{"attention", 90}, {"generate", 200}});
    const StackId keep = loop.stack({{"serve", 33}, {"main", 70}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    servingLoop(loop, 48, 40, 1 << 20, kv, keep);
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const GrowthRegion* g = onlyLeak(r);
    QVERIFY(g);
    QCOMPARE(g->stacks.front(), keep);
    QCOMPARE(g->growthBytes, uint64_t(48) << 20);
    QCOMPARE(countKind(r, LeakKind::Accumulation), size_t(0)); // a request's KV cache is its working set
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(rep.groups.front().stack, keep);
    QVERIFY2(rep.summary.find("every 40th") != std::string::npos, rep.summary.c_str());
}

void TestGrowthRegions::nestedRequestTokenClean() {
    SyntheticLoop loop;
    const StackId kv = loop.stack({{"attention", 90}, {"generate", 200}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    servingLoop(loop, 48, 40, 0, kv, kv);
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    QVERIFY2(r.regions.empty(),
             r.regions.empty() ? "" : std::string(leakKindName(r.regions[0].kind)).c_str());
    QCOMPARE(diagnoseLeaks(*a, 0).kind, LeakKind::None);
}

// A list local to the training function: kept through the whole run, released when it returns.
void TestGrowthRegions::leakReleasedAtProgramEnd() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"train", 52}, {"main", 90}});
    const StackId ret = loop.stack({{"main", 91}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    std::vector<uint64_t> held;
    for (int i = 0; i < 100; ++i) loop.step(4 << 20), held.push_back(loop.alloc(1 << 20, keep));
    for (uint64_t at : held) loop.free(at, 1 << 20, ret);
    auto a = analyse(loop);
    const auto r = regionsOf(*a);
    const GrowthRegion* g = onlyLeak(r);
    QVERIFY(g);
    QCOMPARE(g->stacks.front(), keep);
    QVERIFY(g->releasedAt != kNoEvent);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(rep.groups.front().stack, keep);
}

// deque(maxlen=20): every step keeps one and drops the oldest; the floor rises for 20 steps, then
// stays flat for 280.
void TestGrowthRegions::boundedQueueIsNoLeak() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"recent", 12}, {"train", 80}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    std::vector<uint64_t> q;
    for (int i = 0; i < 300; ++i) {
        loop.step(4 << 20);
        q.push_back(loop.alloc(1 << 20, keep));
        if (q.size() > 20) loop.free(q.front(), 1 << 20, keep), q.erase(q.begin());
    }
    QVERIFY(nothingGrows(loop));
}

// A cache of 30 entries filled in the first 30 of 300 steps, never evicted: bounded, not growing.
// A click in the iteration where a CUDA graph was captured (its pool filled once, kept) is no step's
// temporaries: that rise is not called "freed within the iteration"; a plain step's rise still is.
void TestGrowthRegions::rampKeptPastItsIterationIsNoTransient() {
    SyntheticLoop loop;
    const StackId act = loop.stack({{"forward", 30}}), capture = loop.stack({{"capture_graph", 50}});
    uint32_t keptAt = 0, plainAt = 0;
    for (int i = 0; i < 20; ++i) {
        loop.step();
        if (i == 10) loop.alloc(32 << 20, capture);
        std::vector<uint64_t> x;
        for (int k = 0; k < 3; ++k) x.push_back(loop.alloc(4 << 20, act));
        const auto top = uint32_t(loop.t().eventCount() - 1);
        if (i == 10) keptAt = top;
        if (i == 5) plainAt = top;
        for (auto v : x) loop.free(v, 4 << 20, act);
    }
    auto a = analyse(loop);
    const auto all = pairAllocations(a->trace(0), a->replay(0));
    const auto r = findGrowthRegions(*a, 0, all);
    QVERIFY(r.iterations.count() >= 10);
    const auto plain = iterationRamp(*a, 0, all, r.iterations, plainAt);
    QVERIFY(plain.has_value());
    QCOMPARE(plain->growthBytes, uint64_t(12 << 20));
    QVERIFY(!iterationRamp(*a, 0, all, r.iterations, keptAt).has_value());
}

// A leak that starts half-way grows at its own pace: its rate and the sentence's span run from the
// first block kept, not from the window's start (the program's setup and clean steps grow nothing).
void TestGrowthRegions::leakRateIsOverItsOwnSpan() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"remember", 7}, {"train_step", 22}});
    uint32_t firstKept = 0;
    for (int i = 0; i < 60; ++i) {
        loop.step();
        if (i < 30) continue;
        loop.alloc(32 << 10, keep);
        if (i == 30) firstKept = uint32_t(loop.t().eventCount() - 1);
    }
    auto a = analyse(loop);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QVERIFY(rep.growthBytes >= uint64_t(29 * (32 << 10))); // (the window may end before the last)
    const double span = a->secondsAt(0, rep.last) - a->secondsAt(0, firstKept);
    QVERIFY(a->secondsAt(0, rep.first) < a->secondsAt(0, firstKept) - span / 2); // the window starts earlier
    QVERIFY2(std::abs(rep.growthBytesPerSecond * span / double(rep.growthBytes) - 1) < 1e-6,
             qPrintable(QString::number(rep.growthBytesPerSecond)));
    const std::string from = "made from " + fixed(a->secondsAt(0, firstKept), 3) + " s";
    QVERIFY2(rep.evidence.find(from) != std::string::npos, rep.evidence.c_str());
}

void TestGrowthRegions::cacheFilledEarlyIsNoLeak() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"memo", 12}, {"train", 80}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    for (int i = 0; i < 300; ++i) {
        loop.step(4 << 20);
        if (i < 30) loop.alloc(1 << 20, keep);
    }
    QVERIFY(nothingGrows(loop));
}

// Memory kept in a CUDA graph's private pool (the snapshot names the pool of each segment) is the
// graph's by design: a staircase there is no leak, and the diagnosis says where reserved memory is.
void TestGrowthRegions::graphPoolIsNoLeak() {
    SyntheticLoop loop;
    const StackId keep = loop.stack({{"graph_replay", 12}, {"serve", 80}});
    loop.alloc(64 << 20, loop.stack({{"build_model", 10}}));
    std::vector<uint64_t> pooled;
    for (int i = 0; i < 100; ++i) {
        loop.step(4 << 20);
        pooled.push_back(loop.alloc(1 << 20, keep));
    }
    DeviceTrace& t = loop.t();
    for (uint64_t at : pooled) {
        SnapshotSegment s;
        s.address = at, s.totalSize = 1 << 20, s.poolId[0] = 1;
        s.blocks.push_back({at, 1 << 20, 1 << 20, BlockState::ActiveAllocated, keep});
        t.finalSegments.push_back(s);
    }
    auto a = analyse(loop);
    const GraphPools pools(a->trace(0));
    QCOMPARE(pools.poolCount(), size_t(1));
    QCOMPARE(pools.reservedAtEnd(), uint64_t(100) << 20);
    QVERIFY(!pools.poolOf(pooled[5], uint32_t(a->trace(0).eventCount() - 1)).isDefault());
    QVERIFY(pools.poolOf(pooled[5], 0).isDefault()); // before its segment was made
    const auto r = regionsOf(*a);
    QVERIFY(!onlyLeak(r));
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::None);
    QVERIFY2(rep.evidence.find("CUDA graph private pool") != std::string::npos, rep.evidence.c_str());
}

// The recorder's pauses (retention graphs) are annotations of its own: paired, totalled, and never
// taken for the program's iteration marker even when they come at a steady pace.
void TestGrowthRegions::recorderPausesAreNotIterations() {
    SyntheticLoop loop;
    const std::string pause(kPauseAnnotation);
    for (int i = 0; i < 40; ++i) {
        if (i % 4 == 0) loop.annotate(pause.c_str(), true);
        loop.step();
        if (i % 4 == 0) loop.annotate(pause.c_str(), false);
    }
    auto a = analyse(loop);
    const auto pauses = recorderPauses(a->capture(), 0);
    QCOMPARE(pauses.size(), size_t(10));
    for (const auto& p : pauses) QVERIFY(p.toUs > p.fromUs);
    double total = 0;
    for (const auto& p : pauses) total += double(p.toUs - p.fromUs) / 1e6;
    QCOMPARE(recorderPauseSeconds(a->capture()), total);
    QVERIFY(regionsOf(*a).iterations.marker != pause);
}

// Recorded on an H200: torch.compile(mode="reduce-overhead") keeps a CUDA graph private pool; it is
// named in the diagnosis and the state, never growth, and the recorder's exit pause is there.
void TestGrowthRegions::reduceOverheadPoolIsNoGrowth() {
    const auto a =
        openAnalysis((vs::test::samplesDir() + "/../graphs/compile_reduce_overhead.vscap").toStdString());
    const GraphPools pools(a->trace(0));
    QCOMPARE(pools.poolCount(), size_t(1));
    QCOMPARE(pools.reservedAtEnd(), uint64_t(76) << 20);
    const LeakReport rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::None);
    QVERIFY2(rep.evidence.find(
                 "76.00 MiB of the 120.00 MiB reserved at the end is in 1 CUDA graph private pool") !=
                 std::string::npos,
             rep.evidence.c_str());
    for (const auto& g : regionsOf(*a).regions)
        QVERIFY(g.kind != LeakKind::Leak && g.kind != LeakKind::Accumulation);
    QCOMPARE(recorderPauses(a->capture(), 0).size(), size_t(1));
}
