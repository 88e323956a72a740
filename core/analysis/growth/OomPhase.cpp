#include "analysis/growth/OomPhase.h"

#include "analysis/categories/Categories.h"
#include "analysis/categories/MarkedEvaluations.h"
#include "analysis/categories/PhaseWindows.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace vs {

namespace {

// The evaluation of `evaluations` that holds [fromUs, toUs], when training (a finished backward pass)
// came before it.
std::optional<PhaseWindows::Window> holding(const std::vector<PhaseWindows::Window>& evaluations,
                                            const PhaseWindows& w, int64_t fromUs, int64_t toUs) {
    const int64_t trained = w.firstEndOf(Phase::Backward);
    for (const auto& e : evaluations)
        if (trained < e.fromUs && e.fromUs <= fromUs && toUs <= e.toUs) return e;
    return std::nullopt;
}

} // namespace

bool growthWithinPhase(const CaptureAnalysis& a, size_t device, const GrowthRegion& r, uint32_t oom) {
    if (r.kind == LeakKind::Accumulation) return true; // an unfinished tooth too (GrowthRegions)
    const DeviceTrace& t = a.trace(device);
    const PhaseWindows w = PhaseWindows::of(a.capture(), t);
    return holding(w.evaluations(), w, t.timeUs[r.first], t.timeUs[oom]).has_value();
}

PassesKept keptAcrossPasses(const CaptureAnalysis& a, size_t device, uint32_t oom) {
    const DeviceTrace& t = a.trace(device);
    const PhaseWindows w = PhaseWindows::of(a.capture(), a.trace(device));
    // Phases guessed from stacks make a whole evaluation one window, and the training step that
    // failed before its backward pass one too: its layers' blocks cannot be told from passes. Only
    // an evaluation the program marks is one then, and its passes are counted from the blocks.
    const bool guessed = w.guessed();
    const auto eval = holding(guessed ? markedEvaluations(a.capture(), t.device) : w.evaluations(), w,
                              t.timeUs[oom], t.timeUs[oom]);
    if (!eval) return {};
    const auto from =
        uint32_t(std::lower_bound(t.timeUs.begin(), t.timeUs.begin() + oom, eval->fromUs) - t.timeUs.begin());
    const auto cats = a.categories(device);
    const auto& all = cats->allocations;
    std::unordered_map<uint32_t, PassesKept> byStack;
    std::unordered_map<uint32_t, std::unordered_set<uint32_t>> instances;
    for (uint32_t i : cats->byLifetime.aliveAt(all, from, oom, oom)) {
        const Allocation& x = all[i];
        if (x.stack.value == 0) continue;
        PassesKept& k = byStack[x.stack.value];
        k.stack = x.stack, k.bytes += x.bytes, ++k.blocks;
        instances[x.stack.value].insert(w.at(t.timeUs[x.alloc]).instance);
    }
    PassesKept best;
    for (auto& [stack, k] : byStack) {
        if (k.blocks < 3 || k.bytes <= best.bytes) continue;
        // unrecorded passes: each held at most two of the stack's blocks at once (at least half)
        k.passes = guessed ? (k.blocks + 1) / 2 : uint32_t(instances[stack].size());
        if (k.passes >= 3) best = k;
    }
    return best;
}

} // namespace vs
