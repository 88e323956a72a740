#include "analysis/growth/BugReport.h"

#include "analysis/SummaryReport.h"
#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"
#include "util/Format.h"

#include <cstdio>
#include <sstream>

namespace vs {

namespace {

std::string secondsText(double s) {
    return fixed(s, 3);
}

std::string fileName(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string metaValue(const Capture& c, const std::string& key) {
    for (const auto& [k, v] : c.meta)
        if (k == key) return v;
    return {};
}

// "`/home/me/train.py:17` in `train_step`": the allocation site with its whole path.
std::string siteWithPath(const Capture& c, StackId s) {
    const uint32_t at = firstUserFrame(c, s);
    if (at == kNoFrame) return siteText(c, s);
    const Frame& f = c.frames[c.stacks.frames(s)[at]];
    std::ostringstream out;
    out << '`' << c.strings.text(f.filename);
    if (f.line > 0) out << ':' << f.line;
    out << "` in `" << withoutParameters(c.strings.text(f.name)) << '`';
    return out.str();
}

void diagnosisSection(std::ostringstream& md, const CaptureAnalysis& a, const ReportContext& ctx) {
    const LeakReport* r = ctx.report;
    md << "\n#### Diagnosis\n\n";
    if (!r) {
        md << "No diagnosis was computed.\n";
        return;
    }
    const DeviceTrace& t = a.trace(ctx.device);
    auto at = [&](uint32_t e) {
        return double(t.timeUs[std::min<size_t>(e, t.eventCount() - 1)] - a.originUs()) / 1e6;
    };
    md << "**" << leakKindName(r->kind) << "**";
    if (t.eventCount())
        md << " (window " << secondsText(at(r->first)) << "–" << secondsText(at(r->last)) << " s)";
    md << ": " << r->summary << "\n\n";
    if (!r->evidence.empty()) md << "*Evidence:* " << r->evidence << "\n\n";
    if (!r->nextStep.empty()) md << "*Next step:* " << r->nextStep << "\n";
    if (!r->holder.empty()) md << "\n*Kept alive by:* " << r->holder << "\n";
    if (r->groups.empty()) return;
    md << "\n#### Top allocation sites (memory surviving the window)\n\n| # | bytes | blocks | steady | site "
          "|\n"
          "|---:|---:|---:|:---:|---|\n";
    for (size_t i = 0; i < r->groups.size() && i < ctx.topSites; ++i) {
        const SurvivorGroup& g = r->groups[i];
        md << "| " << i + 1 << " | " << humanBytes(int64_t(g.bytes)) << " | " << g.count << " | "
           << (isSteady(g) ? "yes" : "no") << " | " << siteWithPath(a.capture(), g.stack) << " |\n";
    }
}

void environmentSection(std::ostringstream& md, const Capture& c) {
    md << "\n#### Environment\n\n";
    for (const DeviceTrace& t : c.devices) {
        const std::string gpu = gpuText(c, t.device);
        md << "- Device " << t.device << ": "
           << (gpu.empty() ? "GPU name not recorded (PyTorch snapshot)" : gpu) << '\n';
    }
    const std::string torch = metaValue(c, "torch");
    md << "- torch: " << (torch.empty() ? "version not recorded" : torch) << '\n';
    md << "- Capture format: " << c.format << '\n';
    if (!c.settings.present) {
        md << "- Allocator settings: not recorded\n";
        return;
    }
    md << "- `PYTORCH_CUDA_ALLOC_CONF`: "
       << (c.settings.allocConf.empty() ? "unset (defaults)" : "`" + c.settings.allocConf + "`") << '\n';
    for (const auto& [k, v] : c.settings.raw)
        if (k != "PYTORCH_CUDA_ALLOC_CONF") md << "  - " << k << ": " << v << '\n'; // said above
}

} // namespace

std::string gpuText(const Capture& c, int device) {
    for (const DeviceInfo& d : c.deviceInfo)
        if (d.device == device && !d.name.empty())
            return d.totalMemory ? d.name + ", " + humanBytes(int64_t(d.totalMemory)) : d.name; // NOLINT
    return {};
}

std::string exportTitle(const CaptureAnalysis& a, const ReportContext& ctx) {
    const Capture& c = a.capture();
    std::ostringstream title; // (streams: GCC 12 warns falsely on chains of std::string +)
    title << fileName(c.path);
    if (ctx.device < a.deviceCount()) {
        const int ordinal = a.trace(ctx.device).device;
        const std::string gpu = gpuText(c, ordinal);
        title << " \u00b7 device " << ordinal;
        if (!gpu.empty()) title << " (" << gpu << ")";
    }
    title << " \u00b7 " << secondsText(ctx.fromSeconds) << "\u2013" << secondsText(ctx.toSeconds) << " s";
    if (ctx.report)
        title << " \u00b7 "
              << (ctx.report->kind == LeakKind::None ? std::string_view("no growth found")
                                                     : leakKindName(ctx.report->kind));
    return title.str();
}

std::string bugReportMarkdown(const CaptureAnalysis& a, const ReportContext& ctx) {
    std::ostringstream md;
    md << summaryMarkdown(a);
    if (!ctx.image.empty()) md << "\n![" << exportTitle(a, ctx) << "](" << ctx.image << ")\n";
    diagnosisSection(md, a, ctx);
    environmentSection(md, a.capture());
    md << "\n<sub>vramscope report</sub>\n";
    return md.str();
}

} // namespace vs
