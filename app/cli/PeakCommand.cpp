#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/peak/PeakReport.h"
#include "analysis/stacks/SiteText.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace vs::cli {

void siteJson(JsonWriter& j, const Capture& c, StackId s); // LeaksCommand.cpp

namespace {

std::string_view phaseKindName(PhaseKind k) {
    switch (k) {
    case PhaseKind::StartUp:
        return "start_up";
    case PhaseKind::Epoch:
        return "epoch";
    case PhaseKind::Step:
        return "step";
    case PhaseKind::Training:
        return "training";
    case PhaseKind::Evaluation:
        return "evaluation";
    }
    return "training";
}

void lineJson(JsonWriter& j, const Capture& c, const LineHolder& h) {
    j.beginObject().field("bytes", h.bytes).field("count", uint64_t(h.count));
    j.field("category", categoryName(h.category)).key("line");
    if (h.frame == kNoFrame) {
        j.beginObject().endObject();
    } else {
        const Frame& f = c.frames[c.stacks.frames(h.stack)[h.frame]];
        j.beginObject().field("name", c.strings.text(f.name)).field("filename", c.strings.text(f.filename));
        j.field("line", f.line).endObject();
    }
    j.key("site");
    siteJson(j, c, h.stack);
    j.endObject();
}

void writeJson(const CaptureAnalysis& a, size_t d, const PeakReport& p, size_t maxLines, std::ostream& out) {
    const Capture& c = a.capture();
    JsonWriter j(out);
    j.beginObject().field("device", a.trace(d).device).field("summary", p.summary);
    j.field("driver_level", c.nativeStacks); // every cudaMalloc (CUPTI agent), not PyTorch's allocator
    if (p.empty) {
        j.endObject();
        return;
    }
    j.field("time_s", a.secondsAt(d, p.event)).field("event", uint64_t(p.event));
    j.field("allocated", p.allocated).field("reserved", p.reserved);
    j.key("categories").beginObject();
    for (size_t k = 0; k < kCategoryCount; ++k) j.field(categoryName(Category(k)), p.categories[k]);
    j.endObject();
    j.key("lines").beginArray();
    for (size_t i = 0; i < p.lines.size() && i < maxLines; ++i) lineJson(j, c, p.lines[i]);
    j.endArray();
    j.field("typical_step_peak", p.typicalStepPeak).field("steps", uint64_t(p.steps));
    j.field("step_ratio", p.stepRatio()).field("iteration_marker", p.iterationMarker);
    j.field("phase", uint64_t(p.phase)).field("epoch_marker", p.phases.epochMarker);
    j.key("phases").beginArray();
    for (const PhaseRow& r : p.phases.rows) {
        j.beginObject().field("name", r.name).field("kind", phaseKindName(r.kind));
        j.field("from_s", a.secondsAt(d, r.first)).field("to_s", a.secondsAt(d, r.end - 1));
        j.field("peak", r.peak).field("peak_s", a.secondsAt(d, r.peakEvent));
        j.key("rise_percent");
        r.previousPeak < 0 ? j.null() : j.value(r.risePercent());
        j.endObject();
    }
    j.endArray().endObject();
}

// A long table (a step per iteration) in a terminal: the first three, the last, the peak's and the ten
// largest rises, in time order.
std::vector<size_t> shownPhases(const PeakReport& p) {
    const auto& rows = p.phases.rows;
    std::vector<size_t> all(rows.size());
    std::iota(all.begin(), all.end(), size_t(0));
    if (rows.size() <= 24) return all;
    std::vector<size_t> byRise = all;
    std::partial_sort(byRise.begin(), byRise.begin() + 10, byRise.end(),
                      [&](size_t x, size_t y) { return rows[x].risePercent() > rows[y].risePercent(); });
    std::set<size_t> shown{0, 1, 2, rows.size() - 1, p.phase};
    shown.insert(byRise.begin(), byRise.begin() + 10);
    return {shown.begin(), shown.end()};
}

void writeText(const CaptureAnalysis& a, size_t d, const PeakReport& p, size_t maxLines, std::ostream& out) {
    const Capture& c = a.capture();
    out << p.summary << "\n";
    if (p.empty) return;
    out << "\nalive at the peak (" << humanBytesPrecise(p.allocated) << " allocated, "
        << humanBytesPrecise(p.reserved) << " reserved):\n";
    for (size_t k = 0; k < kCategoryCount; ++k)
        if (p.categories[k])
            out << "  " << categoryName(Category(k)) << ": " << humanBytesPrecise(p.categories[k]) << "\n";
    out << "\nby line:\n";
    for (size_t i = 0; i < p.lines.size() && i < maxLines; ++i) {
        const LineHolder& h = p.lines[i];
        out << "  " << humanBytes(h.bytes) << " in " << h.count << " blocks  " << lineText(c, h) << "  ["
            << categoryName(h.category) << "]\n";
    }
    if (p.phases.rows.size() < 2) return;
    out << "\nphases:\n";
    const auto shown = shownPhases(p);
    for (size_t i : shown) {
        const PhaseRow& r = p.phases.rows[i];
        out << (i == p.phase ? "* " : "  ") << r.name << "  " << fixed(a.secondsAt(d, r.first), 3) << " s - "
            << fixed(a.secondsAt(d, r.end - 1), 3) << " s  peak " << humanBytes(r.peak);
        if (r.previousPeak >= 0)
            out << "  (" << (r.risePercent() >= 0 ? "+" : "") << fixed(r.risePercent(), 1) << " %)";
        out << "\n";
    }
    if (shown.size() < p.phases.rows.size())
        out << "  (" << p.phases.rows.size() - shown.size() << " more phases: --json lists every one)\n";
}

} // namespace

// `peak FILE [--device N] [--lines K] [--json]`: what makes the peak of allocated memory.
int runPeak(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--device", "--lines"});
    auto capture = openCapture(a.file());
    const size_t d = chooseDevice(*capture, a);
    currentStep = "explaining the peak";
    const PeakReport p = explainPeak(*capture, d);
    const auto maxLines = static_cast<size_t>(a.integer("--lines").value_or(10));
    a.has("--json") ? writeJson(*capture, d, p, maxLines, out) : writeText(*capture, d, p, maxLines, out);
    return 0;
}

} // namespace vs::cli
