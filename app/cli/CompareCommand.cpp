// `compare A B`: what differs between two captures (or, with --a-range/--b-range, two ranges of
// one): the setting, the peak, the per-iteration peak and live curves lined up by iteration, the
// sites and stacks that hold more or less memory, and a verdict.
#include "Commands.h"

#include "compare/CaptureDiff.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <algorithm>
#include <cstdio>

namespace vs::cli {
namespace {

struct Range {
    double from = 0, to = 1e300; // seconds since the capture's first event
};

Range parseRange(const CliArgs& a, const std::string& name) {
    Range r;
    const auto text = a.option(name);
    if (!text) return r;
    const auto colon = text->find(':');
    char* end = nullptr;
    if (colon == std::string::npos) throw UsageError(name + " needs FROM:TO in seconds, not '" + *text + "'");
    const std::string from = text->substr(0, colon), to = text->substr(colon + 1);
    r.from = std::strtod(from.c_str(), &end);
    if (from.empty() || *end) throw UsageError(name + " needs FROM:TO in seconds, not '" + *text + "'");
    r.to = std::strtod(to.c_str(), &end);
    if (to.empty() || *end || !(r.to >= r.from))
        throw UsageError(name + " needs FROM:TO with FROM <= TO, not '" + *text + "'");
    return r;
}

DiffSide sideOf(const CaptureAnalysis& an, const CliArgs& args, const Range& r, const std::string& name) {
    const size_t d = chooseDevice(an, args);
    const auto& t = an.trace(d).timeUs;
    if (t.empty())
        throw UsageError("device " + std::to_string(an.trace(d).device) + " of " + an.capture().path +
                         " has no events");
    // events at FROM..TO seconds after the first event, both ends included
    const auto us = [&](double s) { return s * 1e6 < 9e18 ? t.front() + int64_t(s * 1e6) : INT64_MAX; };
    DiffSide side = wholeDevice(an, d);
    side.first = uint32_t(std::lower_bound(t.begin(), t.end(), us(r.from)) - t.begin());
    const auto past = uint32_t(std::upper_bound(t.begin(), t.end(), us(r.to)) - t.begin());
    if (side.first >= t.size() || past <= side.first) throw UsageError(name + " holds no event");
    side.last = past - 1;
    return side;
}

std::string signedBytes(int64_t v) {
    std::string s(v > 0 ? "+" : v < 0 ? "-" : "");
    return s.append(humanBytes(std::llabs(v)));
}

void writeSideJson(JsonWriter& j, const char* key, const DiffSide& s, const SideTotals& t) {
    j.key(key)
        .beginObject()
        .field("file", s.analysis->capture().path)
        .field("device", s.trace().device)
        .field("first_event", s.first)
        .field("last_event", s.lastEvent())
        .field("seconds", t.seconds)
        .field("peak_allocated", t.peak)
        .field("peak_reserved", t.peakReserved)
        .field("live_allocated", t.live)
        .endObject();
}

void writeRowJson(JsonWriter& j, const DiffRow& r, bool frames) {
    j.beginObject().field("site", r.site).field("change", diffChangeName(r.change));
    j.field("live_a", r.liveA).field("live_b", r.liveB).field("live_delta", r.liveDelta());
    j.field("peak_a", r.peakA).field("peak_b", r.peakB).field("peak_delta", r.peakDelta());
    j.field("blocks_a", r.blocksA)
        .field("blocks_b", r.blocksB)
        .field("allocs_a", r.allocsA)
        .field("allocs_b", r.allocsB);
    if (frames) {
        j.key("frames").beginArray();
        for (const auto& f : r.frames) j.value(f);
        if (r.frames.empty()) j.value(r.site); // a row past those with frames: its site
        j.endArray();
    }
    j.endObject();
}

void writeIterationsJson(JsonWriter& j, const IterationAlignment& al) {
    j.key("iterations")
        .beginObject()
        .field("aligned_by", al.how)
        .field("by_step_number", al.byNumber)
        .field("marker_a", al.a.marker)
        .field("marker_b", al.b.marker)
        .field("count_a", uint64_t(al.a.count()))
        .field("count_b", uint64_t(al.b.count()))
        .field("growth_per_iteration_a", al.a.growthPerIteration())
        .field("growth_per_iteration_b", al.b.growthPerIteration())
        .key("pairs")
        .beginArray();
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        const auto [i, m] = al.pairs[k];
        j.beginObject().field("a", uint64_t(i)).field("b", uint64_t(m));
        if (al.byNumber) j.field("step", al.a.numbers[i]);
        j.field("peak_a", al.a.peak[i]).field("peak_b", al.b.peak[m]).field("peak_delta", al.peakDelta(k));
        j.field("live_a", al.a.live[i]).field("live_b", al.b.live[m]).field("live_delta", al.liveDelta(k));
        j.endObject();
    }
    j.endArray().endObject();
}

void writeJson(const DiffSide& a, const DiffSide& b, const CaptureDiff& d, size_t top, std::ostream& out) {
    JsonWriter j(out);
    j.beginObject();
    writeSideJson(j, "a", a, d.a);
    writeSideJson(j, "b", b, d.b);
    j.key("context").beginArray();
    for (const auto& c : d.context)
        j.beginObject().field("what", c.what).field("a", c.a).field("b", c.b).endObject();
    j.endArray();
    j.field("peak_delta", d.b.peak - d.a.peak).field("live_delta", d.b.live - d.a.live);
    writeIterationsJson(j, d.iterations);
    j.key("sites").beginArray();
    for (size_t i = 0; i < d.sites.size() && i < top; ++i) writeRowJson(j, d.sites[i], false);
    j.endArray().key("stacks").beginArray();
    for (size_t i = 0; i < d.stacks.size() && i < top; ++i) writeRowJson(j, d.stacks[i], true);
    j.endArray()
        .field("unchanged_stacks", uint64_t(d.unchangedStacks))
        .field("verdict", d.verdict)
        .endObject();
    out << '\n';
}

void writeIterationsText(const IterationAlignment& al, std::ostream& out) {
    out << "Iterations: " << al.a.count() << " in A ('" << al.a.marker << "'), " << al.b.count() << " in B ('"
        << al.b.marker << "'), aligned " << al.how << "\n";
    if (al.pairs.empty()) return;
    // every iteration when few, else about twenty spread over the run plus the largest difference
    const size_t stride = std::max<size_t>(1, al.pairs.size() / 20), worst = al.largestPeakDelta();
    char line[200];
    std::snprintf(line, sizeof line, "  %-9s %12s %12s %12s %12s %12s %12s\n", "iteration", "peak A",
                  "peak B", "peak B-A", "live A", "live B", "live B-A");
    out << line;
    for (size_t k = 0; k < al.pairs.size(); ++k) {
        if (k % stride && k != worst && k + 1 != al.pairs.size()) continue;
        const auto [i, m] = al.pairs[k];
        const std::string label = std::string(al.byNumber ? "#" : "") +
                                  std::to_string(al.byNumber ? al.a.numbers[i] : int64_t(k + 1));
        std::snprintf(line, sizeof line, "  %-9s %12s %12s %12s %12s %12s %12s%s\n", label.c_str(),
                      humanBytes(al.a.peak[i]).c_str(), humanBytes(al.b.peak[m]).c_str(),
                      signedBytes(al.peakDelta(k)).c_str(), humanBytes(al.a.live[i]).c_str(),
                      humanBytes(al.b.live[m]).c_str(), signedBytes(al.liveDelta(k)).c_str(),
                      k == worst ? "  <- largest peak difference" : "");
        out << line;
    }
}

void writeText(const DiffSide& a, const DiffSide& b, const CaptureDiff& d, size_t top, std::ostream& out) {
    for (const auto* s : {&a, &b}) {
        const SideTotals& t = s == &a ? d.a : d.b;
        out << (s == &a ? "A: " : "B: ") << s->analysis->capture().path << ", device " << s->trace().device
            << ", events " << s->first << ".." << s->lastEvent() << " (" << t.seconds << " s)\n";
    }
    if (!d.context.empty()) {
        out << "Differences in the setting:\n";
        for (const auto& c : d.context) out << "  " << c.what << ": " << c.a << " -> " << c.b << "\n";
    }
    out << "Peak allocated: A " << humanBytes(d.a.peak) << ", B " << humanBytes(d.b.peak) << " ("
        << signedBytes(d.b.peak - d.a.peak) << "); peak reserved: A " << humanBytes(d.a.peakReserved)
        << ", B " << humanBytes(d.b.peakReserved) << "; allocated at the end: A " << humanBytes(d.a.live)
        << ", B " << humanBytes(d.b.live) << "\n";
    writeIterationsText(d.iterations, out);
    out << "Sites whose memory differs (B - A), largest first:\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-8s %11s %11s %11s %11s %11s %11s  %s\n", "change", "live A",
                  "live B", "live B-A", "peak A", "peak B", "peak B-A", "site");
    out << line;
    for (size_t i = 0; i < d.sites.size() && i < top; ++i) {
        const DiffRow& r = d.sites[i];
        std::snprintf(line, sizeof line, "  %-8s %11s %11s %11s %11s %11s %11s  ",
                      std::string(diffChangeName(r.change)).c_str(), humanBytes(r.liveA).c_str(),
                      humanBytes(r.liveB).c_str(), signedBytes(r.liveDelta()).c_str(),
                      humanBytes(r.peakA).c_str(), humanBytes(r.peakB).c_str(),
                      signedBytes(r.peakDelta()).c_str());
        out << line << r.site << "\n";
    }
    if (d.sites.size() > top) out << "  ... " << d.sites.size() - top << " more sites\n";
    out << "Verdict: " << d.verdict << "\n";
}

} // namespace

// `compare A B [--json] [--device N] [--a-range FROM:TO] [--b-range FROM:TO] [--top K]`: B against A.
int runCompare(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--device", "--a-range", "--b-range", "--top"}, 2);
    if (a.files().size() != 2)
        throw UsageError("compare needs two files, A and B (the same file twice for two ranges)");
    const auto ca = openCapture(a.files()[0]);
    const auto cb = a.files()[1] == a.files()[0] ? ca : openCapture(a.files()[1]);
    const DiffSide sa = sideOf(*ca, a, parseRange(a, "--a-range"), "--a-range");
    const DiffSide sb = sideOf(*cb, a, parseRange(a, "--b-range"), "--b-range");
    currentStep = "comparing the two captures";
    const CaptureDiff d = compareCaptures(sa, sb);
    const size_t top = size_t(a.integer("--top").value_or(a.has("--json") ? 50 : 15));
    if (a.has("--json"))
        writeJson(sa, sb, d, top, out);
    else
        writeText(sa, sb, d, top, out);
    return 0;
}

} // namespace vs::cli
