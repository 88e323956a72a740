#include "Commands.h"
#include "RegionsJson.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/FindingText.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/stacks/FrameFilter.h"
#include "sim/OomWhatIf.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <algorithm>
#include <cmath>

namespace vs::cli {
namespace {

// S: seconds since the capture's first event (on any device), the origin of every time shown.
uint32_t eventAtSeconds(const CaptureAnalysis& a, const DeviceTrace& t, double s, bool last) {
    const int64_t us = a.originUs() + std::llround(s * 1e6);
    const auto it = last ? std::upper_bound(t.timeUs.begin(), t.timeUs.end(), us)
                         : std::lower_bound(t.timeUs.begin(), t.timeUs.end(), us);
    const auto i = it - t.timeUs.begin() - (last ? 1 : 0);
    return static_cast<uint32_t>(std::clamp<ptrdiff_t>(i, 0, ptrdiff_t(t.eventCount()) - 1));
}

void frameJson(JsonWriter& j, const Capture& c, FrameId f) {
    j.beginObject()
        .field("name", c.strings.text(c.frames[f].name))
        .field("filename", c.strings.text(c.frames[f].filename))
        .field("line", c.frames[f].line)
        .endObject();
}

} // namespace

// The allocation site of a stack as {name, filename, line}; {} when it has no frames.
void siteJson(JsonWriter& j, const Capture& c, StackId s) {
    const uint32_t at = firstUserFrame(c, s);
    if (at == kNoFrame)
        j.beginObject().endObject();
    else
        frameJson(j, c, c.stacks.frames(s)[at]);
}

// The out-of-memory error's figures and cause, inside the diagnosis: `cause` and `oom`.
void writeOomJson(JsonWriter& j, const Capture& c, const OomFacts& f) {
    j.field("cause", oomCauseName(f.cause)).key("oom").beginObject();
    j.field("request", f.request).field("device_free", f.deviceFree);
    j.field("allocated", f.allocated).field("reserved", f.reserved).field("reserved_free", f.reservedFree());
    j.field("largest_free_block", f.largestFree).field("capacity", f.capacity).key("outside_pytorch");
    f.capacity ? j.value(f.outside()) : j.null();
    j.field("step_bytes", f.stepBytes).field("decided_by", f.decidedBy).field("whatif", f.whatIf);
    j.field("batch", f.batch)
        .field("bytes_per_sample_at_least", f.perSampleAtLeast)
        .field("batch_at_most", f.batchAtMost);
    j.key("holders").beginArray();
    for (size_t i = 0; i < f.holders.size() && i < 10; ++i) {
        const LineHolder& h = f.holders[i];
        j.beginObject().field("bytes", h.bytes).field("count", uint64_t(h.count));
        j.field("category", categoryName(h.category)).field("line", lineText(c, h)).key("site");
        siteJson(j, c, h.stack);
        j.endObject();
    }
    j.endArray().endObject();
}

LeakReport leakReport(const CaptureAnalysis& a, size_t d, const CliArgs& args) {
    const DeviceTrace& t = a.trace(d);
    LeakQuery q;
    const auto from = args.number("--from"), to = args.number("--to");
    if ((from || to) && t.eventCount()) {
        if ((from && *from < 0) || (to && *to < 0))
            throw UsageError("--from and --to are seconds since the first event");
        q.autoWindow = false;
        q.first = from ? eventAtSeconds(a, t, *from, false) : 0;
        q.last = to ? eventAtSeconds(a, t, *to, true) : static_cast<uint32_t>(t.eventCount() - 1);
        if (from && to && *to < *from) throw UsageError("--to is before --from");
    }
    q.aliveAtEnd = args.has("--alive-at-end");
    LeakReport rep = diagnoseLeaks(a, d, q);
    currentStep = "simulating the allocator";
    addOomWhatIf(a, d, rep); // a fragmented reserve: would another setting have served the request?
    return rep;
}

void writeLeaksJson(const CaptureAnalysis& a, size_t d, const LeakReport& rep, std::ostream& out,
                    size_t maxGroups) {
    const DeviceTrace& t = a.trace(d);
    const Capture& c = a.capture();
    auto secondsAt = [&](uint32_t e) { return t.eventCount() ? a.secondsAt(d, e) : 0.0; };
    JsonWriter j(out);
    j.beginObject().field("device", t.device);
    j.key("window").beginObject().field("from_s", secondsAt(rep.first)).field("to_s", secondsAt(rep.last));
    j.field("auto", rep.autoWindow).field("alive_at_end", rep.aliveAtEnd).endObject();
    j.key("diagnosis").beginObject().field("kind", leakKindName(rep.kind)).field("summary", rep.summary);
    j.field("growth_bytes", rep.growthBytes).field("growth_bytes_per_s", rep.growthBytesPerSecond);
    j.field("evidence", rep.evidence).field("next_step", rep.nextStep);
    j.field("iterations", uint64_t(rep.iterations)).field("iteration_marker", rep.iterationMarker);
    j.field("holder", rep.holder).key("region");
    const int64_t explained = explainedRegion(rep);
    explained < 0 ? j.null() : j.value(explained);
    if (rep.oom) writeOomJson(j, c, *rep.oom);
    j.endObject();
    const auto all = pairAllocations(t, a.replay(d));
    writeFindingsJson(j, a, d, rep, all);
    writeRegionsJson(j, a, d, rep, all);
    j.key("groups").beginArray();
    for (size_t i = 0; i < rep.groups.size() && i < maxGroups; ++i) {
        const SurvivorGroup& g = rep.groups[i];
        j.beginObject().field("bytes", g.bytes).field("count", g.count);
        j.field("first_s", secondsAt(g.firstEvent)).field("last_s", secondsAt(g.lastEvent));
        j.field("steady", isSteady(g)).field("coverage", g.coverage);
        j.field("category", categoryName(rep.categoryOf(g)));
        const auto frames = c.stacks.frames(g.stack);
        j.key("site");
        siteJson(j, c, g.stack);
        j.key("frames").beginArray();
        for (FrameId f : frames) frameJson(j, c, f);
        j.endArray().endObject();
    }
    j.endArray();
    j.key("sites").beginArray(); // the same survivors grouped by allocation site (innermost user frame)
    const auto sites = groupBySite(c, rep.groups);
    for (size_t i = 0; i < sites.size() && i < maxGroups; ++i) {
        j.beginObject().field("bytes", sites[i].bytes).field("count", sites[i].count).key("site");
        siteJson(j, c, sites[i].stack);
        j.endObject();
    }
    j.endArray();
    if (!rep.autoWindow) { // the net change per stack between the window's edges
        j.key("net_delta").beginArray();
        const auto deltas = netDelta(all, rep.first, rep.last);
        for (size_t i = 0; i < deltas.size() && i < maxGroups; ++i) {
            j.beginObject().field("bytes", deltas[i].bytes).field("count", deltas[i].count).key("site");
            siteJson(j, c, deltas[i].stack);
            j.endObject();
        }
        j.endArray();
    }
    j.key("warnings").beginArray(); // what the capture says of itself (replay mismatches, recorder problems)
    for (const auto& w : a.warnings()) j.value(w);
    j.endArray().endObject();
}

// `leaks FILE [--from S] [--to S] [--device N] [--json]`
int runLeaks(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json", "--alive-at-end"}, {"--from", "--to", "--device", "--groups"});
    auto capture = openCapture(a.file());
    const size_t d = chooseDevice(*capture, a);
    const LeakReport rep = leakReport(*capture, d, a);
    const size_t maxGroups = static_cast<size_t>(a.integer("--groups").value_or(20));
    if (a.has("--json")) {
        writeLeaksJson(*capture, d, rep, out, maxGroups);
        return 0;
    }
    out << "diagnosis: " << leakKindName(rep.kind) << "\n" << rep.summary << "\n";
    if (rep.autoWindow && !rep.growth().findings.empty()) {
        out << "findings: " << findingsTitle(capture->capture(), rep.growth()) << "\n";
    }
    if (!rep.evidence.empty()) out << "evidence: " << rep.evidence << "\n";
    out << "next step: " << rep.nextStep << "\n";
    // the diagnosis stands on the replayed events: what the capture says against them is said here too
    for (const auto& w : capture->warnings()) out << "warning: " << w << "\n";
    out << "\n";
    const Capture& c = capture->capture();
    for (size_t i = 0; i < rep.groups.size() && i < maxGroups; ++i) {
        const SurvivorGroup& g = rep.groups[i];
        out << "#" << i + 1 << "  " << humanBytes(int64_t(g.bytes)) << " in " << g.count << " blocks"
            << (isSteady(g) ? "  [steady, " + std::to_string(g.coverage) + "/10]" : "") << "\n";
        for (FrameId f : c.stacks.frames(g.stack)) {
            if (classifyFrame(c, f) == FrameKind::Internal) continue;
            out << "      " << c.strings.text(c.frames[f].name) << "  "
                << c.strings.text(c.frames[f].filename) << ":" << c.frames[f].line << "\n";
        }
    }
    return 0;
}

} // namespace vs::cli
