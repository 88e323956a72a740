#include "sim/OomWhatIf.h"

#include "sim/WhatIf.h"
#include "util/Format.h"

#include <algorithm>
#include <thread>

namespace vs {

namespace {

bool served(const SimResult& r) {
    return r.recordedOomsAvoided > 0 && !r.firstOom;
}

} // namespace

std::string oomWhatIf(const CaptureAnalysis& a, size_t device, const OomFacts& f,
                      const std::atomic<bool>* cancel) {
    const Capture& c = a.capture();
    if (c.nativeStacks || f.cause != OomCause::Fragmentation) return {};
    const SimInput in = SimInput::fromTrace(a.trace(device), c.streams, a.replay(device), c.settings);
    const SimConfig recorded = SimConfig::fromSettings(c.settings);
    const Capacity cap = defaultCapacity(c, a.trace(device).device, in);
    const SimResult expandable =
        simulate(in, recorded.with("expandable_segments:True"), {cap.bytes, false, cancel});
    std::string s = served(expandable)
                        ? "Simulated under " + humanBytes(int64_t(cap.bytes)) + " (" + cap.source +
                              "), expandable_segments:True serves this request: peak reserved " +
                              humanBytes(expandable.peakReserved) + "."
                        : "Simulated, expandable_segments:True does not serve this request either.";
    const auto configs = sweepGrid(recorded, cap.bytes != 0);
    const auto results = sweep(in, configs, cap.bytes,
                               std::max(1u, std::min(2u, std::thread::hardware_concurrency())), cancel);
    const auto order = rankSweep(results);
    const auto best = std::find_if(order.begin(), order.end(), [&](size_t i) { return served(results[i]); });
    if (best != order.end() && results[*best].config.toString() != expandable.config.toString())
        s += " Of " + std::to_string(results.size()) + " common settings, " +
             results[*best].config.toString() + " serves it with the lowest peak reserved (" +
             humanBytes(results[*best].peakReserved) + ").";
    return s;
}

void addOomWhatIf(const CaptureAnalysis& a, size_t device, LeakReport& rep, const std::atomic<bool>* cancel) {
    if (!rep.oom || rep.kind != LeakKind::Oom) return;
    rep.oom->whatIf = oomWhatIf(a, device, *rep.oom, cancel);
    if (!rep.oom->whatIf.empty()) rep.nextStep += " " + rep.oom->whatIf;
}

} // namespace vs
