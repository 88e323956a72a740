#include "analysis/SummaryReport.h"

#include "util/Format.h"

#include <sstream>

namespace vs {

std::string summaryMarkdown(const CaptureAnalysis& a) {
    std::ostringstream md;
    md << "### vramscope summary: `" << a.capture().path << "`\n\n";
    md << "| device | events | span | peak allocated | peak reserved | final allocated | final reserved | "
          "OOMs |\n";
    md << "|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (size_t i = 0; i < a.deviceCount(); ++i) {
        const DeviceSummary s = a.summary(i);
        char span[32];
        std::snprintf(span, sizeof span, "%.3f s", static_cast<double>(s.lastTimeUs - s.firstTimeUs) / 1e6);
        md << "| " << s.device << " | " << s.events << " | " << span << " | " << humanBytes(s.peak.allocated)
           << " | " << humanBytes(s.peak.reserved) << " | " << humanBytes(s.final.allocated) << " | "
           << humanBytes(s.final.reserved) << " | " << s.oomEvents << " |\n";
    }
    if (!a.warnings().empty()) {
        md << "\nWarnings:\n";
        for (const auto& w : a.warnings()) md << "- " << w << '\n';
    }
    if (!a.capture().settings.allocConf.empty())
        md << "\n`PYTORCH_CUDA_ALLOC_CONF=" << a.capture().settings.allocConf << "`\n";
    return md.str();
}

} // namespace vs
