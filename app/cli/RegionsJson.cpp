#include "RegionsJson.h"

#include "analysis/growth/FindingText.h"
#include "analysis/growth/RegionDiagnosis.h"
#include "analysis/growth/RegionHolders.h"
#include "analysis/stacks/FrameFilter.h"

namespace vs::cli {

void siteJson(JsonWriter& j, const Capture& c, StackId s); // LeaksCommand.cpp

int64_t explainedRegion(const LeakReport& rep) {
    if (!rep.region) return -1;
    for (size_t i = 0; i < rep.growth().regions.size(); ++i) {
        const GrowthRegion& g = rep.growth().regions[i];
        if (g.first == rep.region->first && g.last == rep.region->last && g.kind == rep.region->kind)
            return int64_t(i);
    }
    return -1;
}

void writeRegionsJson(JsonWriter& j, const CaptureAnalysis& a, size_t device, const LeakReport& rep,
                      const std::vector<Allocation>& all) {
    auto secondsAt = [&](uint32_t e) { return a.secondsAt(device, e); };
    constexpr size_t kMaxRegions = 200, kTopGroups = 3;
    j.key("regions").beginArray();
    for (size_t i = 0; i < rep.growth().regions.size() && i < kMaxRegions; ++i) {
        const GrowthRegion& g = rep.growth().regions[i];
        j.beginObject().field("from_s", secondsAt(g.first)).field("to_s", secondsAt(g.last));
        j.field("kind", leakKindName(g.kind)).field("scale", regionScaleName(g.scale));
        j.field("growth_bytes", g.growthBytes).field("per_iteration_bytes", g.perIterationBytes);
        j.field("iterations", uint64_t(g.iterations)).field("blocks", uint64_t(g.allocations.size()));
        j.key("released_at_s");
        g.releasedAt == kNoEvent ? j.null() : j.value(secondsAt(g.releasedAt));
        j.field("released_by", g.releasedBy).field("cost_bytes", g.cost).field("significant", g.significant);
        j.key("top_groups").beginArray();
        const auto groups = regionGroups(all, g);
        for (size_t k = 0; k < groups.size() && k < kTopGroups; ++k) {
            j.beginObject().field("bytes", groups[k].bytes).field("count", groups[k].count).key("site");
            siteJson(j, a.capture(), groups[k].stack);
            j.endObject();
        }
        j.endArray().endObject();
    }
    j.endArray();
}

namespace {

// When the finding's blocks were made, and the bytes per second over that span.
std::pair<uint32_t, uint32_t> madeSpan(const std::vector<Allocation>& all, const GrowthRegion& g) {
    uint32_t from = g.first, to = g.last;
    if (!g.allocations.empty()) from = UINT32_MAX, to = 0;
    for (uint32_t k : g.allocations) from = std::min(from, all[k].alloc), to = std::max(to, all[k].alloc);
    return {from, to};
}

} // namespace

void writeFindingsJson(JsonWriter& j, const CaptureAnalysis& a, size_t device, const LeakReport& rep,
                       const std::vector<Allocation>& all) {
    const Capture& c = a.capture();
    const GrowthRegions& growth = rep.growth();
    j.field("title", findingsTitle(c, growth));
    j.key("findings").beginArray();
    for (const GrowthFinding& f : growth.findings) {
        const GrowthRegion& g = growth.regionOf(f);
        const auto [from, to] = madeSpan(all, g);
        const double span = std::max(1e-6, a.secondsAt(device, to) - a.secondsAt(device, from));
        j.beginObject().field("kind", leakKindName(g.kind)).field("summary", findingText(c, growth, f));
        j.field("bytes", g.growthBytes).field("blocks", uint64_t(g.allocations.size()));
        j.field("repeats", uint64_t(f.repeats)).field("rate", repeatText(g, growth.iterations));
        j.field("bytes_per_s", double(g.growthBytes) / span)
            .field("per_iteration_bytes", g.perIterationBytes);
        j.field("from_s", a.secondsAt(device, from)).field("to_s", a.secondsAt(device, to)).key("site");
        g.stacks.empty() ? (void)j.beginObject().endObject() : siteJson(j, c, g.stacks.front());
        const RegionHolders h =
            c.retention.empty() ? RegionHolders{} : regionHolders(c, a.trace(device), all, g);
        j.field("holder", h.holders.empty() ? std::string() : h.holders.front().path);
        j.key("released_at_s");
        g.releasedAt == kNoEvent ? j.null() : j.value(a.secondsAt(device, g.releasedAt));
        j.field("released_by", g.releasedBy).field("region", uint64_t(f.region)).endObject();
    }
    j.endArray();
}

} // namespace vs::cli
