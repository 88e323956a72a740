#include "CaptureFacts.h"

#include "util/Format.h"

#include <cstdio>

namespace vs {
namespace {

std::string seconds(int64_t us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", double(us) / 1e6);
    return buf;
}

FactSection fileSection(const CaptureAnalysis& a, uint64_t fileBytes) {
    const Capture& c = a.capture();
    return {"File",
            {{"Path", c.path}, {"Format", c.format}, {"Size", humanBytesPrecise(int64_t(fileBytes))}}};
}

FactSection deviceSection(const CaptureAnalysis& a, size_t i) {
    const DeviceTrace& t = a.capture().devices[i];
    FactSection s{"Device " + std::to_string(t.device), {}};
    for (const auto& info : a.capture().deviceInfo)
        if (info.device == t.device) {
            s.rows.push_back({"Name", info.name});
            s.rows.push_back({"Memory", humanBytesPrecise(int64_t(info.totalMemory))});
        }
    s.rows.push_back({"Events", std::to_string(t.eventCount())});
    if (t.eventCount()) s.rows.push_back({"Span", seconds(t.timeUs.back() - t.timeUs.front())});
    s.rows.push_back({"Final state in the file", t.hasFinalSnapshot ? "yes" : "no (replayed from empty)"});
    s.rows.push_back({"Replay matches it", a.replay(i).finalMatchesSnapshot ? "exactly" : "no"});
    return s;
}

// "module" Meta values: "<load address> <build id or -> <path>".
FactRow moduleRow(const std::string& value) {
    const size_t a = value.find(' '), b = a == std::string::npos ? a : value.find(' ', a + 1);
    if (b == std::string::npos) return {value, ""};
    const std::string id = value.substr(a + 1, b - a - 1);
    return {value.substr(b + 1), "at " + value.substr(0, a) + (id == "-" ? "" : ", build id " + id)};
}

} // namespace

std::vector<FactSection> captureFacts(const CaptureAnalysis& a, uint64_t fileBytes) {
    const Capture& c = a.capture();
    std::vector<FactSection> out{fileSection(a, fileBytes)};
    for (size_t i = 0; i < c.devices.size(); ++i) out.push_back(deviceSection(a, i));
    if (c.settings.present) {
        FactSection s{"Allocator settings", {}};
        for (const auto& [k, v] : c.settings.raw) s.rows.push_back({k, v});
        out.push_back(std::move(s));
    }
    FactSection recorder{"Recorder", {}}, modules{"Modules (native frames)", {}};
    for (const auto& [k, v] : c.meta)
        if (k == "module")
            modules.rows.push_back(moduleRow(v));
        else if (k != "warning")
            recorder.rows.push_back({k, v});
    if (!recorder.rows.empty()) out.push_back(std::move(recorder));
    if (!modules.rows.empty()) out.push_back(std::move(modules));
    if (!a.warnings().empty()) {
        FactSection s{"Warnings", {}};
        for (const auto& w : a.warnings()) s.rows.push_back({"", w});
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace vs
