#include "Commands.h"

#include "analysis/replay/GraphPools.h"

#include "analysis/CaptureAnalysis.h"
#include "sim/SimRange.h"
#include "sim/WhatIf.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

namespace vs::cli {
namespace {

std::string percent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * f);
    return buf;
}

std::string seconds(const CaptureAnalysis& a, size_t d, uint32_t event) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", a.secondsAt(d, event));
    return buf;
}

std::string oomText(const CaptureAnalysis& a, size_t d, const SimResult& r) {
    if (!r.firstOom) return "none";
    return "at " + seconds(a, d, r.firstOom->event) + " (event " + std::to_string(r.firstOom->event) +
           "): a request of " + humanBytes(int64_t(r.firstOom->size)) + " failed with " +
           humanBytes(r.firstOom->reserved) + " reserved, " + humanBytes(r.firstOom->allocated) +
           " allocated";
}

void writeResultJson(JsonWriter& j, const CaptureAnalysis& a, size_t d, const SimResult& r) {
    j.beginObject();
    j.key("conf").value(r.config.toString());
    j.key("approximate").value(r.approximate);
    j.key("peak_reserved").value(r.peakReserved);
    j.key("peak_allocated").value(r.peakAllocated);
    j.key("final_reserved").value(r.finalReserved);
    j.key("final_allocated").value(r.finalAllocated);
    j.key("fragmentation_at_peak").value(r.fragmentationAtPeak());
    j.key("peak_time_s").value(r.peakReserved ? a.secondsAt(d, r.peakEvent) : 0.0);
    j.key("segments_created").value(int64_t(r.segmentsCreated));
    j.key("oom");
    if (r.firstOom) {
        j.beginObject();
        j.key("event").value(int64_t(r.firstOom->event));
        j.key("time_s").value(a.secondsAt(d, r.firstOom->event));
        j.key("size").value(int64_t(r.firstOom->size));
        j.key("reserved").value(r.firstOom->reserved);
        j.key("allocated").value(r.firstOom->allocated);
        j.endObject();
    } else {
        j.null();
    }
    j.key("recorded_ooms_reproduced").value(int64_t(r.recordedOomsReproduced));
    j.key("recorded_ooms_avoided").value(int64_t(r.recordedOomsAvoided));
    j.key("notes").beginArray();
    for (const auto& n : r.notes) j.value(n);
    j.endArray();
    j.endObject();
}

uint64_t parseBytes(const std::string& s) {
    size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        throw UsageError("--capacity wants bytes (e.g. 42949672960 or 40GiB), got '" + s + "'");
    }
    const std::string unit = s.substr(used);
    const double mult = unit.empty() || unit == "B" ? 1
                        : unit == "KiB"             ? 1024.0
                        : unit == "MiB"             ? 1048576.0
                        : unit == "GiB"             ? 1073741824.0
                                                    : -1;
    if (mult < 0 || !(v > 0))
        throw UsageError("--capacity wants bytes (e.g. 42949672960 or 40GiB), got '" + s + "'");
    if (v * mult > double(kMaxSimBytes)) // also keeps the conversion below defined
        throw UsageError("--capacity: '" + s + "' is more than any device has (at most " +
                         humanBytes(int64_t(kMaxSimBytes)) + ")");
    return static_cast<uint64_t>(v * mult);
}

struct Context {
    const CaptureAnalysis& a;
    size_t d;
    SimInput in;
    SimConfig recorded;
    Capacity capacity;
};

void printHeader(std::ostream& out, const Context& c) {
    out << "device " << c.a.trace(c.d).device << ": " << c.a.trace(c.d).eventCount() << " events, "
        << c.in.requests.size() << " requests\n";
    out << "capacity: "
        << (c.capacity.bytes ? humanBytesPrecise(int64_t(c.capacity.bytes)) + " (" + c.capacity.source + ")"
                             : std::string("unlimited (not recorded: pass --capacity BYTES)"))
        << '\n';
    if (c.in.startsMidRun)
        out << "note: the trace starts mid-run; simulations start from the recorded state at its first "
               "event\n";
    if (const GraphPools& pools = *c.a.graphPools(c.d); !pools.empty())
        out << "note: " << humanBytes(int64_t(pools.reservedAtEnd()))
            << " is reserved in CUDA graph private pools; the simulator models the default pool only, so "
               "its figures can differ from the recording's\n";
}

int runSweep(std::ostream& out, const Context& c, bool json) {
    const auto configs = sweepGrid(c.recorded, c.capacity.bytes != 0);
    auto results = sweep(c.in, configs, c.capacity.bytes,
                         std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
    const std::vector<size_t> order = rankSweep(results);
    if (json) {
        JsonWriter j(out);
        j.beginObject().key("device").value(int64_t(c.a.trace(c.d).device));
        j.key("capacity").value(int64_t(c.capacity.bytes)).key("sweep").beginArray();
        for (size_t i : order) writeResultJson(j, c.a, c.d, results[i]);
        j.endArray().endObject();
        out << '\n';
        return 0;
    }
    printHeader(out, c);
    out << "rank  peak reserved   final reserved  frag@peak  OOM   settings\n";
    for (size_t k = 0; k < order.size(); ++k) {
        const auto& r = results[order[k]];
        char line[160];
        std::snprintf(line, sizeof line, "%4zu  %-14s  %-14s  %-9s  %-4s  ", k + 1,
                      humanBytes(r.peakReserved).c_str(), humanBytes(r.finalReserved).c_str(),
                      percent(r.fragmentationAtPeak()).c_str(), r.firstOom ? "yes" : "no");
        out << line << r.config.toString() << (order[k] == 0 ? " (recorded)" : "")
            << (r.approximate ? " (approximate)" : "") << '\n';
    }
    if (std::any_of(results.begin(), results.end(), [](const SimResult& r) { return r.approximate; }))
        out << "(approximate rows rank after the exact ones whatever their figures: the simulator only "
               "approximates that allocator)\n";
    out << whatIfSentence(results[0], results[order[0]]) << '\n';
    return 0;
}

} // namespace

// `whatif FILE --conf "key:value,..." [--capacity BYTES] [--device N] [--json] [--sweep]`: simulates
// PyTorch's caching allocator over the capture's requests under other PYTORCH_CUDA_ALLOC_CONF settings.
int runWhatIf(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json", "--sweep"}, {"--conf", "--capacity", "--device"});
    if (!a.has("--sweep") && !a.option("--conf"))
        throw UsageError("whatif needs --conf \"key:value,...\" or --sweep");
    auto capture = openCapture(a.file());
    if (capture->capture().nativeStacks) // cudaMalloc calls, not the caching allocator's requests
        throw UsageError("whatif needs PyTorch's allocator requests; this capture was recorded at the CUDA "
                         "driver level (CUPTI agent)");
    const size_t d = chooseDevice(*capture, a);
    if (capture->trace(d).device == kPinnedHostDevice) // another allocator, with its own policy
        throw UsageError("whatif simulates PyTorch's CUDA caching allocator; pinned host memory is the host "
                         "allocator's: pick a GPU with --device");
    Context c{*capture,
              d,
              SimInput::fromTrace(capture->trace(d), capture->capture().streams, capture->replay(d),
                                  capture->capture().settings),
              SimConfig::fromSettings(capture->capture().settings),
              {}};
    SimConfig alt;
    try {
        alt = c.recorded.with(a.option("--conf").value_or(""));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--conf: ") + e.what());
    }
    c.recorded.memoryFraction = alt.memoryFraction; // a fraction given applies to the recorded run as well
    c.capacity = defaultCapacity(capture->capture(), capture->trace(d).device, c.in);
    if (auto cap = a.option("--capacity")) c.capacity = {parseBytes(*cap), "given"};
    if (alt.memoryFraction > 0 && c.capacity.bytes == 0) // a share of an unknown size limits nothing
        throw UsageError("per_process_memory_fraction is a share of the device's memory, which this capture "
                         "does not record: pass --capacity BYTES (e.g. 80GiB)");
    currentStep = "simulating the allocator";
    if (a.has("--sweep")) return runSweep(out, c, a.has("--json"));

    const SimResult base = simulate(c.in, c.recorded, {c.capacity.bytes, true, nullptr});
    const SimResult what = simulate(c.in, alt, {c.capacity.bytes, false, nullptr});
    const Reproduction rep = compareWithRecording(base, capture->replay(d));
    const std::string when = what.firstOom ? seconds(*capture, d, what.firstOom->event) : "";
    const std::string sentence = whatIfSentence(base, what, when);
    if (a.has("--json")) {
        JsonWriter j(out);
        j.beginObject().key("device").value(int64_t(capture->trace(d).device));
        j.key("capacity").value(int64_t(c.capacity.bytes)).key("capacity_source").value(c.capacity.source);
        j.key("starts_mid_run").value(c.in.startsMidRun);
        j.key("recorded_peak_reserved").value(int64_t(c.in.recordedPeakReserved));
        j.key("recorded_final_reserved").value(int64_t(c.in.recordedFinalReserved));
        j.key("reproduction").beginObject().key("steps").value(int64_t(rep.steps));
        j.key("mismatches").value(int64_t(rep.mismatches)).key("exact").value(rep.exact()).endObject();
        j.key("recorded_settings");
        writeResultJson(j, *capture, d, base);
        j.key("whatif");
        writeResultJson(j, *capture, d, what);
        j.key("sentence").value(sentence).endObject();
        out << '\n';
        return 0;
    }
    printHeader(out, c);
    if (base.firstOom)
        out << "recorded settings (" << c.recorded.toString() << ") under this capacity: out of memory "
            << oomText(*capture, d, base) << '\n';
    out << "recorded settings (" << c.recorded.toString() << "): peak reserved "
        << humanBytes(base.peakReserved) << " simulated, " << humanBytes(int64_t(c.in.recordedPeakReserved))
        << " recorded; "
        << (rep.exact() ? "every one of " + std::to_string(rep.steps) + " steps reproduced"
                        : std::to_string(rep.mismatches) + " of " + std::to_string(rep.steps) +
                              " steps differ (first at event " + std::to_string(rep.firstMismatchEvent) +
                              ": " + humanBytes(rep.simulatedAtMismatch) + " simulated, " +
                              humanBytes(rep.recordedAtMismatch) + " recorded)")
        << '\n';
    out << "what-if (" << what.config.toString() << "): peak reserved " << humanBytes(what.peakReserved)
        << ", final reserved " << humanBytes(what.finalReserved) << ", peak allocated "
        << humanBytes(what.peakAllocated) << ", fragmentation at peak " << percent(what.fragmentationAtPeak())
        << ", out of memory: " << oomText(*capture, d, what) << '\n';
    for (const auto& n : what.notes) out << "note: " << n << '\n';
    out << sentence << '\n';
    return 0;
}

} // namespace vs::cli
