#include "analysis/growth/FindingText.h"

#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

namespace vs {
namespace {

const char* ordinalSuffix(uint32_t k) {
    if (k % 100 >= 11 && k % 100 <= 13) return "th";
    return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

} // namespace

// "4.75 MiB every 10th 'train_step'", "1.11 MiB per 'forward' (in 48 of 1920)": the bytes kept
// each time, in the unit that repeats; empty without iterations.
std::string repeatText(const GrowthRegion& r, const Iterations& its) {
    if (r.iterations < 3 || r.keptIn == 0) return {};
    const std::string unit = "'" + its.marker + "'";
    const std::string each = humanBytes(int64_t(r.perIterationBytes));
    if (5 * r.keptIn >= 4 * r.iterations) return each + " per " + unit + " iteration";
    if (const uint32_t k = r.interval; k > 1)
        return each + " every " + std::to_string(k) + ordinalSuffix(k) + " " + unit + " iteration";
    return each + " at a time, in " + std::to_string(r.keptIn) + " of " + std::to_string(r.iterations) + " " +
           unit + " iterations (irregularly: on errors, retries or some inputs)";
}

std::string findingText(const Capture& c, const GrowthRegions& g, const GrowthFinding& f) {
    const GrowthRegion& r = g.regionOf(f);
    const std::string_view kind = leakKindName(r.kind);
    const bool vowel =
        !kind.empty() && std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
    std::string out = vowel ? "an " : "a ";
    out += std::string(kind) + " of " + humanBytes(int64_t(r.growthBytes));
    if (!r.stacks.empty()) out += " at " + siteText(c, r.stacks.front());
    if (f.repeats > 1) out += " (" + std::to_string(f.repeats) + " times)";
    return out;
}

std::string findingsTitle(const Capture& c, const GrowthRegions& g) {
    if (g.findings.empty()) return "No growth found";
    std::string out =
        std::to_string(g.findings.size()) + (g.findings.size() == 1 ? " finding: " : " findings: ");
    for (size_t i = 0; i < g.findings.size(); ++i) out += (i ? ", " : "") + findingText(c, g, g.findings[i]);
    return out;
}

} // namespace vs
