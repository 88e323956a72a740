#pragma once
// What a bug report carries: a one-line title for exported images (file, device and GPU, range,
// diagnosis) and a Markdown report (diagnosis, top allocation sites with file:line, the devices,
// the torch version and allocator settings, the summary table, the exported image).
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakDiagnosis.h"

#include <string>

namespace vs {

struct ReportContext {
    size_t device = 0;                     // index of the device the views show
    const LeakReport* report = nullptr;    // the diagnosis shown in the Leaks tab, if any
    double fromSeconds = 0, toSeconds = 0; // the time range shown, seconds from the analysis' origin
    std::string image;                     // a file name the Markdown links to; empty: none
    size_t topSites = 5;
};

// "run.vscap · device 0 (NVIDIA H200) · 0.000–12.500 s · leak"
std::string exportTitle(const CaptureAnalysis& a, const ReportContext& ctx);
std::string bugReportMarkdown(const CaptureAnalysis& a, const ReportContext& ctx);
// "NVIDIA H200, 140.4 GiB" from the recorder's device facts; empty when the capture has none.
std::string gpuText(const Capture& c, int device);

} // namespace vs
