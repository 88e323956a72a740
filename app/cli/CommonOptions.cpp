#include "Commands.h"
#include "RemoteFetch.h"

#include "analysis/CaptureAnalysis.h"
#include "load/OpenAnalysis.h"
#include "load/OpenCudaLevel.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace vs::cli {

bool openCudaLevelInstead = false;
const char* currentStep = "reading the input";

std::shared_ptr<const CaptureAnalysis> openCapture(const std::string& path) {
    const std::string local = localCopyOf(path); // ssh://host/path: copied here first
    return openCudaLevelInstead ? openCudaLevel(local) : openAnalysis(local);
}

std::shared_ptr<const CaptureAnalysis> openCapture(const CliArgs& args) {
    const auto from = args.number("--from"), to = args.number("--to");
    if (!from && !to) return openCapture(args.file());
    TimeWindow w;
    if (from) w.fromS = *from;
    if (to) w.toS = *to;
    if (!(w.fromS >= 0) || !(w.toS > w.fromS))
        throw UsageError("--from and --to need seconds since the first event, --to after --from");
    return openAnalysis(localCopyOf(args.file()), {}, {w, false});
}

std::optional<int64_t> momentOption(const CaptureAnalysis& a, const CliArgs& args, const std::string& name) {
    const auto s = args.number(name);
    if (!s) return std::nullopt;
    int64_t endUs = a.originUs();
    for (size_t d = 0; d < a.deviceCount(); ++d)
        if (a.trace(d).eventCount()) endUs = std::max(endUs, a.trace(d).timeUs.back());
    const double spanS = double(endUs - a.originUs()) / 1e6;
    // a moment past the end would show the final state under a made-up time (and seconds beyond
    // ~292,000 years overflow the microsecond clock)
    if (!std::isfinite(*s) || *s < 0 || *s > spanS + 1e-3) // 1 ms: the end as printed below, rounded
        throw UsageError(name + " " + args.option(name).value_or("") +
                         ": needs seconds since the first event, from 0 to the capture's end (" +
                         fixed(spanS, 3) + " s)");
    return a.originUs() + std::llround(*s * 1e6);
}

size_t chooseDevice(const CaptureAnalysis& a, const CliArgs& args) {
    if (a.deviceCount() == 0) throw UsageError("the capture holds no device");
    if (auto n = args.integer("--device")) {
        const int i = a.indexOfDevice(*n);
        if (i < 0) throw UsageError("the capture has no device " + std::to_string(*n));
        return static_cast<size_t>(i);
    }
    return a.defaultDevice();
}

} // namespace vs::cli
