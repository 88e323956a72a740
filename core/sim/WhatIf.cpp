#include "WhatIf.h"

#include "SimRange.h"
#include "util/Cancelled.h"
#include "util/Format.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <tuple>

namespace vs {

Reproduction compareWithRecording(const SimResult& sim, const ReplayResult& rec) {
    Reproduction out;
    for (size_t k = 0; k < sim.event.size(); ++k) {
        const uint32_t e = sim.event[k];
        // the first point is the state before the first request
        const int64_t recRes = k == 0 ? rec.initial.reserved : rec.reserved[e];
        const int64_t recAl = k == 0 ? rec.initial.allocated : rec.allocated[e];
        ++out.steps;
        if (recRes == sim.reserved[k] && recAl == sim.allocated[k]) continue;
        if (out.mismatches++ == 0) {
            out.firstMismatchEvent = e;
            out.simulatedAtMismatch = sim.reserved[k];
            out.recordedAtMismatch = recRes;
        }
    }
    const int64_t recPeak = std::max(rec.peak.reserved, rec.initial.reserved);
    out.peakMatches = sim.peakReserved == recPeak;
    out.finalMatches = !sim.firstOom && sim.finalReserved == rec.final.reserved;
    return out;
}

Capacity defaultCapacity(const Capture& capture, int deviceOrdinal, const SimInput& in) {
    // A recorded OOM below the device's size means a memory fraction or other processes limited the run.
    // Either is read from the file: one past the simulator's range (SimRange.h) is damage, not a device.
    if (in.capacityBelow && in.capacityBelow - 1 <= kMaxSimBytes)
        return {in.capacityBelow - 1, "recorded out-of-memory"};
    for (const auto& d : capture.deviceInfo)
        if (d.device == deviceOrdinal && d.totalMemory && d.totalMemory <= kMaxSimBytes)
            return {d.totalMemory, "device"};
    return {0, "not recorded"};
}

std::string whatIfSentence(const SimResult& base, const SimResult& alt, const std::string& when) {
    const std::string name = alt.config.toString();
    if (alt.firstOom)
        return name + " would run out of memory" + (when.empty() ? "" : " at " + when) + " (a request of " +
               humanBytes(int64_t(alt.firstOom->size)) + " with " + humanBytes(alt.firstOom->reserved) +
               " reserved)";
    if (base.firstOom)
        return name + " would not run out of memory (peak reserved " + humanBytes(alt.peakReserved) + ")";
    if (alt.peakReserved == base.peakReserved) return name + " changes nothing here";
    return name + (alt.peakReserved < base.peakReserved ? " would lower" : " would raise") +
           " peak reserved from " + humanBytes(base.peakReserved) + " to " + humanBytes(alt.peakReserved);
}

std::vector<SimConfig> sweepGrid(const SimConfig& recorded, bool capacityKnown) {
    std::vector<std::string> confs = {
        "",
        "expandable_segments:True",
        "max_split_size_mb:64",
        "max_split_size_mb:128",
        "max_split_size_mb:256",
        "max_split_size_mb:512",
        "roundup_power2_divisions:2",
        "roundup_power2_divisions:4",
        "roundup_power2_divisions:8",
        "roundup_power2_divisions:16",
        "expandable_segments:True,roundup_power2_divisions:4",
        "max_split_size_mb:128,roundup_power2_divisions:4",
        "expandable_segments:True,max_split_size_mb:128",
        "backend:cudaMallocAsync",
    };
    if (capacityKnown) {
        const bool fraction = recorded.memoryFraction > 0;
        confs.push_back(std::string(fraction ? "" : "per_process_memory_fraction:1,") +
                        "garbage_collection_threshold:0.6");
        confs.push_back(std::string(fraction ? "" : "per_process_memory_fraction:1,") +
                        "garbage_collection_threshold:0.8");
    } else {
        confs.push_back("max_split_size_mb:1024");
        confs.push_back("expandable_segments:True,roundup_power2_divisions:8");
    }
    std::vector<SimConfig> out;
    for (const auto& c : confs) {
        SimConfig s = c.empty() ? recorded : SimConfig{}.with(c);
        if (!c.empty()) s.memoryFraction = std::max(s.memoryFraction, recorded.memoryFraction);
        if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
    return out;
}

std::vector<size_t> rankSweep(const std::vector<SimResult>& results) {
    std::vector<size_t> order(results.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](size_t i) {
        return std::make_tuple(results[i].firstOom.has_value(), results[i].approximate,
                               results[i].peakReserved);
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return key(x) < key(y); });
    return order;
}

std::vector<SimResult> sweep(const SimInput& in, const std::vector<SimConfig>& configs, uint64_t capacity,
                             unsigned threads, const std::atomic<bool>* cancel) {
    std::vector<SimResult> out(configs.size());
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(std::max(1u, threads));
    auto work = [&](unsigned w) {
        try {
            for (size_t i; (i = next.fetch_add(1)) < configs.size();)
                out[i] = simulate(in, configs[i], {capacity, false, cancel});
        } catch (...) {
            errors[w] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < std::max(1u, threads); ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

} // namespace vs
