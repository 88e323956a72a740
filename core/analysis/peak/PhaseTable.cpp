#include "analysis/peak/PhaseTable.h"

#include "analysis/categories/MarkedEvaluations.h"
#include "analysis/categories/PhaseWindows.h"

#include <algorithm>
#include <map>

namespace vs {

namespace {

uint32_t eventAt(const DeviceTrace& t, int64_t us) {
    return uint32_t(std::lower_bound(t.timeUs.begin(), t.timeUs.end(), us) - t.timeUs.begin());
}

// Where each phase begins, as events, with its kind: epochs, evaluations and the training that
// resumes after an evaluation (a later boundary at the same event wins: an evaluation that begins
// with an epoch is the evaluation).
std::map<uint32_t, PhaseKind> boundaries(const Capture& c, const DeviceTrace& t, const Iterations& its) {
    std::map<uint32_t, PhaseKind> at;
    for (uint32_t s : its.phaseStarts) at[s] = PhaseKind::Epoch;
    if (its.phaseStarts.empty()) // no epochs marked: each training iteration is a phase
        for (uint32_t s : its.starts) at[s] = PhaseKind::Step;
    // the evaluations the program marks itself, else those its forward passes show
    auto evaluations = markedEvaluations(c, t.device);
    if (evaluations.empty()) {
        evaluations = PhaseWindows::of(c, t).evaluations();
    }
    for (const auto& e : evaluations) {
        const uint32_t from = eventAt(t, e.fromUs), to = e.toUs == INT64_MAX ? kNoEvent : eventAt(t, e.toUs);
        // an evaluation is one phase: the iterations found inside it (its forward passes) are not steps;
        // a marked epoch that begins before training resumes ends it (the next epoch's marker comes
        // just before that epoch's first forward pass): no "after evaluation" row then
        bool epochBegan = false;
        for (auto it = at.upper_bound(from); it != at.end() && it->first <= to;) {
            epochBegan |= it->second == PhaseKind::Epoch;
            it = it->second == PhaseKind::Step && it->first < to ? at.erase(it) : std::next(it);
        }
        if (to != kNoEvent && to < t.eventCount() && !at.count(to) && !epochBegan)
            at[to] = PhaseKind::Training;
        at[from] = PhaseKind::Evaluation;
    }
    // before the first boundary: start-up, or the whole run
    if (!at.count(0)) at[0] = at.empty() ? PhaseKind::Training : PhaseKind::StartUp;
    return at;
}

std::string rowName(PhaseKind k, size_t epochs, size_t evaluations, bool hasEpochs) {
    switch (k) {
    case PhaseKind::StartUp:
        return hasEpochs ? "before the first epoch" : "start-up";
    case PhaseKind::Epoch:
        return "epoch " + std::to_string(epochs);
    case PhaseKind::Step:
        return "step " + std::to_string(epochs);
    case PhaseKind::Evaluation:
        return "evaluation " + std::to_string(evaluations);
    case PhaseKind::Training:
        return hasEpochs ? "epoch " + std::to_string(epochs) + ", after evaluation" : "training";
    }
    return {};
}

} // namespace

size_t PhaseTable::rowOf(uint32_t e) const {
    const auto it = std::upper_bound(rows.begin(), rows.end(), e,
                                     [](uint32_t v, const PhaseRow& r) { return v < r.first; });
    return it == rows.begin() ? 0 : size_t(it - rows.begin() - 1);
}

double PhaseTable::worstRisePercent(size_t* at) const {
    const bool epochs =
        std::any_of(rows.begin(), rows.end(), [](auto& r) { return r.kind == PhaseKind::Epoch; });
    const PhaseKind kind = epochs ? PhaseKind::Epoch : PhaseKind::Step;
    double worst = -1;
    size_t seen = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].kind != kind) continue;
        if (++seen < 3) continue; // the first (warm-up) is compared with nothing, nor is the second with it
        if (const double rise = rows[i].risePercent(); rise > worst) worst = rise, at && (*at = i);
    }
    return worst;
}

PhaseTable phaseTable(const Capture& c, const DeviceTrace& t, const ReplayResult& r, const Iterations& its) {
    PhaseTable table;
    table.epochMarker = its.phaseStarts.empty() ? std::string() : its.phaseMarker;
    const auto n = uint32_t(r.allocated.size());
    if (n == 0) return table;
    const auto at = boundaries(c, t, its);
    size_t epochs = 0, evaluations = 0;
    std::map<PhaseKind, int64_t> previous;
    for (auto it = at.begin(); it != at.end() && it->first < n; ++it) {
        PhaseRow row;
        row.kind = it->second;
        row.first = it->first;
        row.end = std::next(it) == at.end() ? n : std::min(n, std::next(it)->first);
        epochs += row.kind == PhaseKind::Epoch || row.kind == PhaseKind::Step;
        evaluations += row.kind == PhaseKind::Evaluation;
        row.name = rowName(row.kind, epochs, evaluations, !its.phaseStarts.empty());
        const auto range = r.allocated.range(row.first, row.end);
        row.peak = range.max;
        row.peakEvent = uint32_t(r.allocated.argMax(row.first, row.end));
        if (auto p = previous.find(row.kind); p != previous.end()) row.previousPeak = p->second;
        previous[row.kind] = row.peak;
        table.rows.push_back(std::move(row));
    }
    return table;
}

} // namespace vs
