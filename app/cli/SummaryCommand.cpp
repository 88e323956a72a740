#include "Commands.h"
#include "RemoteFetch.h"

#include "analysis/RecorderPauses.h"
#include "analysis/replay/GraphPools.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/categories/PhaseWindows.h"
#include "analysis/composition/Composition.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <algorithm>

#include <cstdio>

namespace vs::cli {
namespace {

// What the memory is made of at the device's peak of allocated, and outside PyTorch
// (docs/categories.md): only for recordings that can tell (phases, tags, both levels, driver samples).
void writeComposition(JsonWriter& j, const CaptureAnalysis& a, const Composition& comp, size_t i) {
    const DeviceTrace& t = a.trace(i);
    const auto& allocated = a.replay(i).allocated;
    if (allocated.empty()) return;
    const size_t peak = allocated.argMax(0, allocated.size());
    const CompositionAt at = comp.at(a, i, t.timeUs[peak]);
    j.key("categories_at_peak").beginObject();
    for (size_t c = 0; c < kCategoryCount; ++c) j.field(categoryName(Category(c)), at.categories[c]);
    j.endObject();
    const DeviceOutside* o = comp.outsideOf(t.device);
    j.key("outside_pytorch").beginArray();
    if (o)
        for (const auto& s : o->owners)
            j.beginObject()
                .field("library", s.name)
                .field("peak", s.peak)
                .field("final", s.final)
                .endObject();
    j.endArray();
    if (o && !o->gap.empty()) {
        const GapSample& g = o->gap.back();
        j.key("driver")
            .beginObject()
            .field("used", g.driverUsed)
            .field("figure", g.processFigure ? "nvml process" : "cuMemGetInfo device");
        j.field("explained", g.explained).field("gap", g.gap()).endObject();
    }
}

// allocator_settings.trace_alloc_overflowed as the JSON says it: "unknown" where the snapshot is silent.
const char* ringBufferName(RingBuffer r) {
    return r == RingBuffer::Overflowed ? "overflowed" : r == RingBuffer::Kept ? "kept" : "unknown";
}

bool canTellComposition(const Capture& c) {
    return !c.tags.empty() || c.cudaLevel || !c.driverSamples.empty() || !PhaseWindows(c).empty();
}

void writeJson(const CaptureAnalysis& a, std::ostream& out) {
    const auto comp = canTellComposition(a.capture()) ? Composition::compute(a) : nullptr;
    JsonWriter j(out);
    j.beginObject()
        .field("file", shownPath(a.capture().path))
        .field("format", a.capture().format)
        .key("devices")
        .beginArray();
    for (size_t i = 0; i < a.deviceCount(); ++i) {
        const DeviceSummary s = a.summary(i);
        j.beginObject()
            .field("device", s.device)
            .field("events", uint64_t(s.events))
            .field("first_time_us", s.firstTimeUs)
            .field("last_time_us", s.lastTimeUs)
            .field("peak_allocated", s.peak.allocated)
            .field("peak_reserved", s.peak.reserved)
            .field("peak_active", s.peak.active)
            .field("final_allocated", s.final.allocated)
            .field("final_reserved", s.final.reserved)
            .field("final_active", s.final.active)
            .field("oom_events", s.oomEvents)
            .field("segments", uint64_t(s.segments))
            .field("baseline_blocks", s.baselineBlocks)
            .field("baseline_bytes", s.baselineBytes)
            .field("replay_exact", a.replay(i).finalMatchesSnapshot && a.replay(i).inconsistencies == 0)
            .field("name", deviceName(s.device))
            .field("ring_buffer", ringBufferName(a.trace(i).ringBuffer))
            .field("ghost_blocks", uint64_t(a.ghosts(i).blocks.size()))
            .field("ghost_bytes", a.ghosts(i).bytes);
        const GraphPools& pools =
            *a.graphPools(i); // private pools (CUDA graphs) at the end, from the snapshot
        j.field("graph_pools", uint64_t(pools.poolCount()))
            .field("graph_pool_reserved", pools.reservedAtEnd())
            .field("graph_pool_allocated", pools.allocatedAtEnd());
        if (comp) writeComposition(j, a, *comp, i);
        j.endObject();
    }
    const auto& c = a.capture();
    size_t pauses = 0;
    for (const auto& d : c.devices) pauses = std::max(pauses, recorderPauses(c, d.device).size());
    j.endArray()
        .field("recorder_pauses", uint64_t(pauses))
        .field("recorder_pause_s", recorderPauseSeconds(c))
        .key("recorder_cost"); // what the recorder timed of itself, in words; null: it said nothing
    if (const std::string cost = recorderCost(c); cost.empty())
        j.null();
    else
        j.value(cost);
    j.key("warnings").beginArray();
    for (const auto& w : a.warnings()) j.value(w);
    j.endArray().endObject();
}

// Reads like torch.cuda.memory_summary(): a bordered table of current and peak values.
void writeText(const CaptureAnalysis& a, std::ostream& out) {
    const std::string rule(79, '=');
    const std::string thin(79, '-');
    auto row = [&](const char* name, const std::string& cur, const std::string& peak) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "| %-28s | %21s | %21s |\n", name, cur.c_str(), peak.c_str());
        out << buf;
    };
    out << "File: " << shownPath(a.capture().path) << " (" << a.capture().format << ")\n";
    for (size_t i = 0; i < a.deviceCount(); ++i) {
        const DeviceSummary s = a.summary(i);
        out << '|' << rule.substr(2) << "|\n";
        char title[96];
        if (s.device == kPinnedHostDevice)
            std::snprintf(title, sizeof title, "vramscope memory summary, pinned host memory");
        else
            std::snprintf(title, sizeof title, "vramscope memory summary, device ID %d", s.device);
        char line[128];
        std::snprintf(line, sizeof line, "|%*s%*s|\n", int(38 + std::string(title).size() / 2), title,
                      int(39 - std::string(title).size() / 2), "");
        out << line << '|' << thin.substr(2) << "|\n";
        row("Metric", "At end of capture", "Peak");
        out << '|' << rule.substr(2) << "|\n";
        row("Allocated memory", humanBytes(s.final.allocated), humanBytes(s.peak.allocated));
        row("Active memory", humanBytes(s.final.active), humanBytes(s.peak.active));
        row("Reserved memory", humanBytes(s.final.reserved), humanBytes(s.peak.reserved));
        row("Cached (reserved-allocated)", humanBytes(s.final.reserved - s.final.allocated), "");
        out << '|' << thin.substr(2) << "|\n";
        row("Segments", std::to_string(s.segments), "");
        row("Events recorded", std::to_string(s.events), "");
        row("Time span",
            s.events ? std::to_string((s.lastTimeUs - s.firstTimeUs) / 1e6).substr(0, 10) + " s" : "-", "");
        row("OOM events", std::to_string(s.oomEvents), "");
        row("Baseline (before recording)", humanBytes(int64_t(s.baselineBytes)),
            std::to_string(s.baselineBlocks) + " blocks");
        if (const GhostBlocks& g = a.ghosts(i); !g.blocks.empty())
            row("Ghost blocks (only freed)", humanBytes(int64_t(g.bytes)),
                std::to_string(g.blocks.size()) + " blocks");
        if (const GraphPools& pools = *a.graphPools(i); !pools.empty())
            row("CUDA graph pools (reserved)", humanBytes(int64_t(pools.reservedAtEnd())),
                std::to_string(pools.poolCount()) + " pools");
        out << '|' << rule.substr(2) << "|\n";
    }
    if (const double paused = recorderPauseSeconds(a.capture()); paused > 0)
        out << "The recorder paused the program for " << fixed(paused, 3)
            << " s in all (retention graphs; hatched on the timeline).\n";
    if (const std::string cost = recorderCost(a.capture()); !cost.empty())
        out << "Recorder cost: " << cost << ".\n";
    for (const auto& w : a.warnings()) out << "warning: " << w << '\n';
}

} // namespace

int runSummary(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--from", "--to"});
    auto capture = openCapture(a);
    if (a.has("--json"))
        writeJson(*capture, out);
    else
        writeText(*capture, out);
    return 0;
}

} // namespace vs::cli
