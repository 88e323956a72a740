#include "Commands.h"

#include "analysis/CaptureAnalysis.h"

namespace vs::cli {

// `series FILE [--device N] --csv`: one row per change of allocated, active or reserved.
int runSeries(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--csv"}, {"--device", "--from", "--to"});
    if (!a.has("--csv")) throw UsageError("series writes CSV only: add --csv");
    auto capture = openCapture(a);
    const size_t d = chooseDevice(*capture, a);
    const DeviceTrace& t = capture->trace(d);
    const ReplayResult& r = capture->replay(d);
    std::string buf = "time_us,allocated,active,reserved\n";
    Totals last = r.initial;
    if (t.eventCount())
        buf += std::to_string(t.timeUs.front()) + ',' + std::to_string(last.allocated) + ',' +
               std::to_string(last.active) + ',' + std::to_string(last.reserved) + '\n';
    for (size_t i = 0; i < t.eventCount(); ++i) {
        const Totals v = r.after(i);
        if (v == last) continue;
        last = v;
        buf += std::to_string(t.timeUs[i]);
        buf += ',', buf += std::to_string(v.allocated);
        buf += ',', buf += std::to_string(v.active);
        buf += ',', buf += std::to_string(v.reserved);
        buf += '\n';
        if (buf.size() > (1 << 20)) out << buf, buf.clear();
    }
    out << buf;
    return 0;
}

} // namespace vs::cli
