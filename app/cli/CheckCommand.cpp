#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/FindingText.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/growth/RegionDiagnosis.h"
#include "analysis/peak/PhaseTable.h"
#include "analysis/stacks/FrameFilter.h"
#include "compare/BaselineGate.h"
#include "io/MemoryBudget.h"
#include "util/Format.h"

#include <fstream>
#include <sstream>

namespace vs::cli {
namespace {

std::string xmlEscape(const std::string& s) {
    std::string o;
    for (char ch : s) {
        switch (ch) {
        case '&':
            o += "&amp;";
            break;
        case '<':
            o += "&lt;";
            break;
        case '>':
            o += "&gt;";
            break;
        case '"':
            o += "&quot;";
            break;
        default:
            o += ch;
        }
    }
    return o;
}

void writeJunit(const std::string& path, const std::string& file, bool failed, const std::string& message,
                const std::string& details) {
    std::ofstream x(path);
    if (!x) throw UsageError("cannot write " + path);
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites><testsuite name=\"vramscope\" tests=\"1\" "
         "failures=\""
      << (failed ? 1 : 0) << "\">\n  <testcase classname=\"vramscope.check\" name=\"" << xmlEscape(file)
      << "\">\n";
    if (failed)
        x << "    <failure message=\"" << xmlEscape(message) << "\">" << xmlEscape(details) << "</failure>\n";
    x << "    <system-out>" << xmlEscape(details)
      << "</system-out>\n  </testcase>\n</testsuite></testsuites>\n";
}

double nonNegative(const CliArgs& a, const std::string& name, const char* what) {
    const auto text = a.option(name);
    char* end = nullptr;
    const double v = std::strtod(text->c_str(), &end);
    if (text->empty() || *end || !(v >= 0)) throw UsageError(name + " needs " + what);
    return v;
}

// A byte count (0 allowed: any growth fails) or a size such as 16M or 1.5G, as --max-memory takes.
double byteLimit(const CliArgs& a, const std::string& name) {
    const std::string text = *a.option(name);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (!text.empty() && !*end && v >= 0 && v <= 9.2e18) return v; // within int64: it is printed as bytes
    if (const auto bytes = MemoryBudget::parse(text)) return double(*bytes);
    throw UsageError(name + " needs a size such as 16M, 1.5G or a byte count");
}

// The top sites of what the gate counted: a region's own blocks when the diagnosis is a region (an
// accumulation's one phase), else the window's steady groups (which also count a stack's blocks
// that are merely alive at the window's end).
void writeSites(std::ostream& report, const Capture& c, const LeakReport& rep) {
    const bool region = rep.region && rep.categories;
    const std::vector<SurvivorGroup> own =
        region ? regionGroups(rep.categories->allocations, *rep.region) : std::vector<SurvivorGroup>{};
    const std::vector<SurvivorGroup>& groups = region ? own : rep.groups;
    const size_t n = region ? groups.size() : rep.steadyGroups;
    for (size_t i = 0; i < n && i < 3 && i < groups.size(); ++i) {
        const auto frames = c.stacks.frames(groups[i].stack);
        const uint32_t site = firstUserFrame(c, groups[i].stack);
        report << "  " << humanBytes(int64_t(groups[i].bytes)) << " from ";
        if (site == kNoFrame)
            report << "(no stack)\n";
        else
            report << c.strings.text(c.frames[frames[site]].name) << " "
                   << c.strings.text(c.frames[frames[site]].filename) << ":" << c.frames[frames[site]].line
                   << "\n";
    }
}

// What the growth gate counts: the largest leak, accumulation or cycle among the findings (a
// capture with a small leak under a large accumulation fails on either); in a window asked for, the
// diagnosis's own growth.
uint64_t gatedGrowth(const LeakReport& rep) {
    if (!rep.autoWindow) return rep.growthBytes;
    uint64_t most = 0;
    for (const GrowthFinding& f : rep.growth().findings)
        most = std::max(most, rep.growth().regionOf(f).growthBytes);
    return most;
}

// The per-phase peak gate: the largest rise of a phase's peak over the previous one's (PhaseTable, the
// table `peak` prints: epochs when the program marks them, else training iterations).
bool peakGrowthOver(const CaptureAnalysis& a, size_t d, const LeakReport& rep, double limitPercent,
                    std::ostream& report) {
    const PhaseTable p = phaseTable(a.capture(), a.trace(d), a.replay(d), rep.growth().iterations);
    size_t at = 0;
    const double rise = p.worstRisePercent(&at);
    const bool over = rise > limitPercent;
    const std::string unit = p.epochMarker.empty() ? "iteration" : "'" + p.epochMarker + "' phase";
    report << (over ? "FAIL" : "ok") << ": " << deviceName(a.trace(d).device) << ": peak per " << unit << " ";
    if (rise < 0) {
        report << "not checked (fewer than three " << unit << "s)\n";
        return false;
    }
    report << "rises by at most " << rise << " % (limit " << limitPercent << " %)";
    if (over)
        report << ": " << humanBytes(p.rows[at].previousPeak) << " before " << p.rows[at].name << ", "
               << humanBytes(p.rows[at].peak) << " in it";
    report << "\n";
    return over;
}

// The regression gate against a known-good capture: a device's peak over the baseline's by more
// than the limit.
bool baselineOver(const CaptureAnalysis& run, const std::string& baselinePath, double limitPercent,
                  std::ostream& report) {
    const auto base = openCapture(baselinePath);
    bool over = false;
    for (const auto& c : baselineGate(run, *base, limitPercent)) {
        report << (c.failed ? "FAIL" : "ok") << ": " << c.sentence << "\n";
        if (c.failed && !c.largestDifference.empty()) report << "  " << c.largestDifference << "\n";
        over |= c.failed;
    }
    return over;
}

} // namespace

LeakReport leakReport(const CaptureAnalysis& a, size_t d, const CliArgs& args);
void writeLeaksJson(const CaptureAnalysis& a, size_t d, const LeakReport& rep, std::ostream& out,
                    size_t maxGroups);

// `check FILE [--max-growth SIZE] [--max-peak-growth PCT] [--baseline BASE --max-peak-regression PCT]
// [--device N] [--json] [--junit OUT.xml]`: the CI gate. Exit 1 when the growth (a leak or an
// accumulation) exceeds SIZE, the peak of a phase rises by more than PCT over the previous phase (on
// any device unless --device), or a device's peak exceeds the baseline capture's by more than PCT.
int runCheck(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json", "--alive-at-end"},
              {"--max-growth", "--max-peak-growth", "--device", "--junit", "--baseline",
               "--max-peak-regression", "--from", "--to"});
    const bool growthGate = a.option("--max-growth").has_value(),
               peakGate = a.option("--max-peak-growth").has_value();
    const bool baseGate = a.option("--baseline").has_value();
    if (baseGate != a.option("--max-peak-regression").has_value())
        throw UsageError("--baseline BASE and --max-peak-regression PCT go together");
    if (!growthGate && !peakGate && !baseGate)
        throw UsageError("check needs --max-growth SIZE, --max-peak-growth PCT or --baseline BASE "
                         "--max-peak-regression PCT");
    const double limit = growthGate ? byteLimit(a, "--max-growth") : 0;
    const double peakLimit = peakGate ? nonNegative(a, "--max-peak-growth", "a percentage") : 0;
    const double regressionLimit = baseGate ? nonNegative(a, "--max-peak-regression", "a percentage") : 0;
    auto capture = openCapture(a);
    std::ostringstream report;
    bool failed = baseGate && baselineOver(*capture, *a.option("--baseline"), regressionLimit, report);
    std::vector<size_t> devices; // for the growth and peak-per-phase gates
    if (!growthGate && !peakGate)
        ;
    else if (a.option("--device"))
        devices.push_back(chooseDevice(*capture, a));
    else
        for (size_t d = 0; d < capture->deviceCount(); ++d) devices.push_back(d);
    for (size_t d : devices) {
        const LeakReport rep = leakReport(*capture, d, a);
        const uint64_t growth = gatedGrowth(rep);
        const bool over = growthGate && double(growth) > limit;
        const bool peakOver = peakGate && peakGrowthOver(*capture, d, rep, peakLimit, report);
        failed |= over || peakOver;
        if (a.has("--json")) {
            writeLeaksJson(*capture, d, rep, report, 5);
            continue;
        }
        if (!growthGate) continue;
        report << (over ? "FAIL" : "ok") << ": " << deviceName(capture->trace(d).device) << ": growth "
               << humanBytes(int64_t(growth)) << " (limit " << humanBytes(int64_t(limit)) << "), "
               << leakKindName(rep.kind) << ": " << rep.summary << "\n";
        writeSites(report, capture->capture(), rep);
        if (rep.autoWindow && rep.growth().findings.size() > 1) // what else the gate weighed
            report << "  " << findingsTitle(capture->capture(), rep.growth()) << "\n";
    }
    out << report.str();
    if (auto junit = a.option("--junit"))
        writeJunit(*junit, a.file(), failed,
                   growthGate ? "GPU memory growth above " + humanBytes(int64_t(limit))
                   : peakGate ? "GPU memory peak per phase rising above " + std::to_string(peakLimit) + " %"
                              : "GPU memory peak above the baseline's by more than " +
                                    *a.option("--max-peak-regression") + " %",
                   report.str());
    return failed ? 1 : 0;
}

} // namespace vs::cli
