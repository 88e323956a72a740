#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/FrameFilter.h"
#include "analysis/LeakDiagnosis.h"
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

} // namespace

LeakReport leakReport(const CaptureAnalysis& a, size_t d, const CliArgs& args);
void writeLeaksJson(const CaptureAnalysis& a, size_t d, const LeakReport& rep, std::ostream& out,
                    size_t maxGroups);

// `check FILE --max-growth BYTES [--device N] [--json] [--junit OUT.xml]`: the CI gate. Exit 1 when
// the steady growth exceeds BYTES (on any device unless --device), 0 when not.
int runCheck(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json", "--alive-at-end"}, {"--max-growth", "--device", "--junit"});
    const auto limitText = a.option("--max-growth");
    if (!limitText) throw UsageError("check needs --max-growth BYTES");
    char* end = nullptr;
    const double limit = std::strtod(limitText->c_str(), &end);
    if (limitText->empty() || *end || !(limit >= 0)) throw UsageError("--max-growth needs a number of bytes");
    auto capture = openCapture(a.file());
    std::vector<size_t> devices;
    if (a.option("--device"))
        devices.push_back(chooseDevice(*capture, a));
    else
        for (size_t d = 0; d < capture->deviceCount(); ++d) devices.push_back(d);
    bool failed = false;
    std::ostringstream report;
    for (size_t d : devices) {
        const LeakReport rep = leakReport(*capture, d, a);
        const bool over = double(rep.growthBytes) > limit;
        failed |= over;
        if (a.has("--json")) {
            writeLeaksJson(*capture, d, rep, report, 5);
            continue;
        }
        report << (over ? "FAIL" : "ok") << ": device " << capture->trace(d).device << ": steady growth "
               << humanBytes(int64_t(rep.growthBytes)) << " (limit " << humanBytes(int64_t(limit)) << "), "
               << leakKindName(rep.kind) << ": " << rep.summary << "\n";
        const Capture& c = capture->capture();
        for (size_t i = 0; i < rep.steadyGroups && i < 3; ++i) {
            const auto frames = c.stacks.frames(rep.groups[i].stack);
            const uint32_t site = firstUserFrame(c, rep.groups[i].stack);
            report << "  " << humanBytes(int64_t(rep.groups[i].bytes)) << " from ";
            if (site == kNoFrame)
                report << "(no stack)\n";
            else
                report << c.strings.text(c.frames[frames[site]].name) << " "
                       << c.strings.text(c.frames[frames[site]].filename) << ":"
                       << c.frames[frames[site]].line << "\n";
        }
    }
    out << report.str();
    if (auto junit = a.option("--junit"))
        writeJunit(*junit, a.file(), failed, "steady GPU memory growth above " + humanBytes(int64_t(limit)),
                   report.str());
    return failed ? 1 : 0;
}

} // namespace vs::cli
