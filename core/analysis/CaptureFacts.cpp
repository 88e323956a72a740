#include "analysis/CaptureFacts.h"

#include "analysis/categories/OutsideTorch.h"
#include "analysis/categories/PhaseWindows.h"

#include "util/DisplayText.h"
#include "util/Format.h"

#include <cctype>
#include <cstdio>
#include <map>

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
    std::string title = deviceName(t.device);
    title[0] = char(std::toupper(static_cast<unsigned char>(title[0])));
    FactSection s{title, {}};
    for (const auto& info : a.capture().deviceInfo)
        if (info.device == t.device) {
            s.rows.push_back({"Name", info.name});
            s.rows.push_back({"Memory", humanBytesPrecise(int64_t(info.totalMemory))});
        }
    s.rows.push_back({"Events", std::to_string(t.eventCount())});
    if (t.eventCount()) s.rows.push_back({"Span", seconds(t.timeUs.back() - t.timeUs.front())});
    s.rows.push_back({"Final state in the file", t.hasFinalSnapshot ? "yes" : "no (replayed from empty)"});
    s.rows.push_back({"Replay matches it", a.replay(i).finalMatchesSnapshot ? "exactly" : "no"});
    const uint64_t size = a.capture().settings.traceMaxEntries;
    const std::string entries = size ? " (max_entries " + std::to_string(size) + ")" : "";
    if (t.ringBuffer == RingBuffer::Overflowed)
        s.rows.push_back(
            {"Ring buffer", "overflowed: entries before the first one kept were lost" + entries});
    else if (t.ringBuffer == RingBuffer::Kept)
        s.rows.push_back({"Ring buffer", "kept every entry" + entries});
    if (const GhostBlocks& g = a.ghosts(i); !g.blocks.empty())
        s.rows.push_back(
            {"Ghost blocks (seen only being freed)",
             std::to_string(g.blocks.size()) + " (" + humanBytesPrecise(int64_t(g.bytes)) + ")"});
    return s;
}

// What the program attached to the recording: user_metadata values (_set_memory_metadata) with how
// many entries carry each, and the labels put on live blocks after the fact (_annotate_memory). Both
// bounded: a program may stamp a fresh string on every step.
FactSection metadataSection(const CaptureAnalysis& a) {
    constexpr size_t kMaxRows = 40;
    const Capture& c = a.capture();
    FactSection s{"Snapshot metadata", {}};
    std::map<std::string_view, size_t> counts;
    for (const auto& t : c.devices)
        for (const auto& [index, text] : t.userMetadata) ++counts[c.strings.text(text)];
    for (const auto& [text, n] : counts) {
        if (s.rows.size() == kMaxRows) break;
        s.rows.push_back(
            {"user_metadata", displayText(text, "value") + " (" + std::to_string(n) + " entries)"});
    }
    if (counts.size() > kMaxRows)
        s.rows.push_back({"", std::to_string(counts.size() - kMaxRows) + " more values"});
    for (size_t i = 0; i < c.blockAnnotations.size() && i < kMaxRows; ++i) {
        const BlockAnnotation& n = c.blockAnnotations[i];
        char where[96];
        std::snprintf(where, sizeof where, "annotated at %.3f s, %s, block 0x%llx", a.secondsOf(n.timeUs),
                      deviceName(n.device).c_str(), static_cast<unsigned long long>(n.address));
        s.rows.push_back({where, displayText(c.strings.text(n.text), "label")});
    }
    if (c.blockAnnotations.size() > kMaxRows)
        s.rows.push_back({"", std::to_string(c.blockAnnotations.size() - kMaxRows) + " more annotations"});
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

// What the recording can tell about what the memory is made of (docs/categories.md): the recorder's
// phases and tags, the libraries outside PyTorch and the gap to the driver. The categories' bytes
// over time are the Composition tab's (computed in the background there).
static FactSection madeOfSection(const CaptureAnalysis& a) {
    const Capture& c = a.capture();
    FactSection s{"What the memory is made of", {}};
    const PhaseWindows phases(c);
    if (!phases.empty() || !c.tags.empty())
        s.rows.push_back(
            {"categories", std::string(phases.empty() ? "no phases" : "forward/backward/optimizer phases") +
                               ", " + std::to_string(c.tags.size()) + " tagged tensors (Composition tab)"});
    std::vector<const ReplayResult*> replays;
    for (size_t i = 0; i < a.deviceCount(); ++i) replays.push_back(&a.replay(i));
    for (const DeviceOutside& o : outsideTorch(c, replays)) {
        const std::string dev = deviceName(o.device) + ": ";
        for (const auto& lib : o.owners)
            s.rows.push_back({dev + lib.name, "peak " + humanBytesPrecise(lib.peak) + ", final " +
                                                  humanBytesPrecise(lib.final)});
        if (!o.gap.empty())
            s.rows.push_back({dev + "gap to the driver",
                              humanBytesPrecise(o.gap.back().gap()) + " of " +
                                  humanBytesPrecise(o.gap.back().driverUsed) +
                                  (o.gap.back().processFigure ? " (NVML, this process)"
                                                              : " (cuMemGetInfo, whole device)")});
    }
    return s;
}

std::vector<FactSection> captureFacts(const CaptureAnalysis& a, uint64_t fileBytes) {
    const Capture& c = a.capture();
    std::vector<FactSection> out{fileSection(a, fileBytes)};
    for (size_t i = 0; i < c.devices.size(); ++i) out.push_back(deviceSection(a, i));
    if (auto meta = metadataSection(a); !meta.rows.empty()) out.push_back(std::move(meta));
    if (c.settings.present) {
        FactSection s{"Allocator settings", {}};
        for (const auto& [k, v] : c.settings.raw) // an unset variable reads as empty: say so
            s.rows.push_back({k, v.empty() && k == "PYTORCH_CUDA_ALLOC_CONF" ? std::string("(not set)")
                                                                             : displayText(v, "setting")});
        out.push_back(std::move(s));
    }
    FactSection recorder{"Recorder", {}}, modules{"Modules (native frames)", {}};
    for (const auto& [k, v] : c.meta)
        if (k == "module")
            modules.rows.push_back(moduleRow(v));
        else if (k != "warning")
            recorder.rows.push_back({k, displayText(v, "value")});
    if (!recorder.rows.empty()) out.push_back(std::move(recorder));
    if (!modules.rows.empty()) out.push_back(std::move(modules));
    if (auto made = madeOfSection(a); !made.rows.empty()) out.push_back(std::move(made));
    if (!a.warnings().empty()) {
        FactSection s{"Warnings", {}};
        for (const auto& w : a.warnings()) s.rows.push_back({"", w});
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace vs
