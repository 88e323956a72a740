#include "analysis/growth/ReleaseCause.h"

#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace vs {

ReleaseCauses::ReleaseCauses(const Capture& c, const DeviceTrace& t, const std::vector<Allocation>& all)
    : c_(c), t_(t), all_(all) {
    int64_t open = -1;
    for (const auto& a : c.annotations) {
        if (a.device != t.device || c.strings.text(a.name) != kGcAnnotation) continue;
        if (a.start)
            open = a.timeUs;
        else if (open >= 0)
            collections_.emplace_back(open, a.timeUs), open = -1;
    }
    std::sort(collections_.begin(), collections_.end());
}

bool ReleaseCauses::inCollection(int64_t us) const {
    auto it = std::upper_bound(collections_.begin(), collections_.end(), std::pair{us, INT64_MAX});
    return it != collections_.begin() && std::prev(it)->second >= us;
}

// CPython's collector in a native stack (stacks="all"): gc_collect_main, delete_garbage, or, in a
// libpython without symbols, the nearest exported name of the gc module (PyInit_gc).
bool ReleaseCauses::collectorFrames(StackId s) const {
    static constexpr std::array<std::string_view, 6> names = {
        "gc_collect", "PyInit_gc", "delete_garbage", "collect_generations", "_PyGC_", "gcmodule"};
    for (FrameId f : c_.stacks.frames(s)) {
        const auto name = c_.strings.text(c_.frames[f].name), file = c_.strings.text(c_.frames[f].filename);
        for (auto n : names)
            if (name.find(n) != std::string_view::npos || file.find(n) != std::string_view::npos) return true;
    }
    return false;
}

// The user function that made the memory, when it is no longer on the stack that frees it and its
// caller is the innermost user frame there: the memory lived until that function returned.
std::string ReleaseCauses::returningFunction(StackId allocStack, StackId freeStack) const {
    auto userFrames = [&](StackId s) {
        std::vector<FrameId> out;
        for (FrameId f : c_.stacks.frames(s))
            if (classifyFrame(c_, f) == FrameKind::User) out.push_back(f);
        return out;
    };
    const auto made = userFrames(allocStack), freed = userFrames(freeStack);
    if (made.size() < 2 || freed.empty()) return {};
    auto sameFunction = [&](FrameId x, FrameId y) {
        return c_.frames[x].name == c_.frames[y].name && c_.frames[x].filename == c_.frames[y].filename;
    };
    auto onFreeStack = [&](FrameId f) {
        return std::any_of(freed.begin(), freed.end(), [&](FrameId g) { return sameFunction(f, g); });
    };
    // the free happens in the caller itself (its innermost user frame), right after the call
    if (onFreeStack(made.front())) return {};
    for (size_t i = 1; i < made.size(); ++i)
        if (onFreeStack(made[i]))
            return sameFunction(made[i], freed.front())
                       ? std::string(withoutParameters(c_.strings.text(c_.frames[made[i - 1]].name))) +
                             "() returned"
                       : std::string();
    return {};
}

// An annotated phase (epochs) that starts or ends in the iteration of the release.
std::string ReleaseCauses::phaseEnd(uint32_t event, const Iterations& its) const {
    if (its.phaseStarts.empty()) return {};
    const size_t k = its.indexOf(event);
    for (uint32_t p : its.phaseStarts)
        if (const size_t q = its.indexOf(p); q + 1 >= k && q <= k + 1)
            return "the end of a '" + its.phaseMarker + "'";
    // the last phase ends with the run
    if (k >= its.count() && its.phaseStarts.back() < event)
        return "the end of the last '" + its.phaseMarker + "'";
    return {};
}

ReleaseCause ReleaseCauses::of(const std::vector<uint32_t>& allocations, const Iterations& its) {
    ReleaseCause r;
    std::unordered_map<uint32_t, uint64_t> bytesByStack;
    uint32_t madeBy = 0;
    for (uint32_t a : allocations) {
        const Allocation& x = all_[a];
        if (x.freeRequested == kNoEvent) continue;
        if (x.freeRequested < r.event) r.event = x.freeRequested, madeBy = x.stack.value;
        r.garbageCollector |= inCollection(t_.timeUs[x.freeRequested]);
        bytesByStack[x.stack.value] += x.bytes;
    }
    if (r.event == kNoEvent) return r;
    const StackId freeStack = t_.stack[r.event];
    r.garbageCollector |= collectorFrames(freeStack);
    const uint32_t at = firstUserFrame(c_, freeStack);
    const std::string where = at == kNoFrame ? std::string() : frameText(c_, c_.stacks.frames(freeStack)[at]);
    if (!bytesByStack.empty()) {
        const auto top = std::max_element(bytesByStack.begin(), bytesByStack.end(),
                                          [](auto& x, auto& y) { return x.second < y.second; });
        sitesByStack_[top->first].push_back(at == kNoFrame ? UINT32_MAX
                                                           : c_.stacks.frames(freeStack)[at].value);
    }
    if (r.garbageCollector) {
        r.text = "Python's garbage collector ran" + (where.empty() ? std::string() : " (at " + where + ")");
        return r;
    }
    if (auto phase = phaseEnd(r.event, its); !phase.empty()) {
        r.text = phase + (where.empty() ? std::string() : " (at " + where + ")");
        return r;
    }
    if (auto fn = returningFunction(StackId{madeBy}, freeStack); !fn.empty()) {
        r.text = fn + (where.empty() ? std::string() : " (at " + where + ")");
        return r;
    }
    r.text =
        where.empty() ? std::string("the program let go of them") : "the program let go of them at " + where;
    return r;
}

bool ReleaseCauses::collectorBetween(uint32_t from, uint32_t to) const {
    to = std::min<uint32_t>(to, uint32_t(t_.eventCount()));
    std::unordered_map<uint32_t, bool> seen; // a release frees many blocks from few stacks
    for (uint32_t e = from; e < to; ++e) {
        if (t_.action[e] != Action::FreeRequested) continue;
        if (inCollection(t_.timeUs[e])) return true;
        auto [it, fresh] = seen.try_emplace(t_.stack[e].value, false);
        if (fresh) it->second = collectorFrames(t_.stack[e]);
        if (it->second) return true;
    }
    return false;
}

bool ReleaseCauses::variedSites(StackId stack) const {
    const auto it = sitesByStack_.find(stack.value);
    if (it == sitesByStack_.end() || it->second.size() < 3) return false;
    std::unordered_map<uint32_t, size_t> n;
    size_t most = 0;
    for (uint32_t s : it->second) most = std::max(most, ++n[s]);
    return 3 * most < 2 * it->second.size();
}

} // namespace vs
