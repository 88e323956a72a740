#include "Commands.h"

#include "analysis/CaptureAnalysis.h"
#include "analysis/composition/Composition.h"
#include "util/Format.h"
#include "util/JsonWriter.h"

#include <cmath>

namespace vs::cli {

namespace {

// --at S (seconds after the first event), --at-mark NAME (the first mark or annotation so named:
// `vramscope.mark("truth", i)`), else the end of the device's trace.
int64_t chosenMoment(const CaptureAnalysis& a, size_t d, const CliArgs& args) {
    const DeviceTrace& t = a.trace(d);
    if (auto moment = momentOption(a, args, "--at")) return *moment;
    if (auto name = args.option("--at-mark")) {
        const Capture& c = a.capture();
        for (const auto& n : c.annotations)
            if (n.start && c.strings.text(n.name) == *name) return n.timeUs;
        throw UsageError("no mark named '" + *name + "' in the capture");
    }
    return t.eventCount() ? t.timeUs.back() : 0;
}

void writeJson(const CompositionAt& r, const Composition& comp, std::ostream& out) {
    JsonWriter j(out);
    j.beginObject().field("device", r.device).field("time_us", r.timeUs);
    j.field("allocated", r.allocated).field("reserved", r.reserved).field("cache", r.cache());
    j.field("phases", comp.categories().phases).field("tags", comp.categories().tags);
    j.key("categories").beginObject();
    for (size_t c = 0; c < kCategoryCount; ++c)
        j.key(categoryName(Category(c)))
            .beginObject()
            .field("bytes", r.categories[c])
            .field("requested", r.requested[c])
            .endObject();
    j.endObject();
    j.field("cuda_level", r.hasCudaLevel).field("pytorch_at_cuda_level", r.torchMatched);
    j.key("outside_pytorch").beginArray();
    for (const auto& [name, bytes] : r.outside)
        j.beginObject().field("library", name).field("bytes", bytes).endObject();
    j.endArray();
    if (r.graphPools) {
        j.key("cuda_graph_pools").beginObject().field("reserved", r.graphPools->reserved);
        j.field("in_use", r.graphPools->inUseTotal()).field("free", r.graphPools->free()).endObject();
    }
    if (r.driver) {
        j.key("driver").beginObject().field("time_us", r.driver->timeUs).field("used", r.driver->driverUsed);
        j.field("figure", r.driver->processFigure ? "nvml process" : "cuMemGetInfo device");
        j.field("explained", r.driver->explained).field("gap", r.driver->gap()).endObject();
    }
    j.endObject();
}

void writeText(const CompositionAt& r, const Composition& comp, double seconds, bool driverLevel,
               std::ostream& out) {
    out << "device " << r.device << " at " << fixed(seconds, 3) << " s (since the first event)\n";
    if (!comp.categories().phases && !driverLevel)
        out << "  (no phases: categories need a recording by vramscope's recorder or Python stacks; all "
               "unknown)\n";
    else if (!comp.categories().tags && !driverLevel)
        out << "  (no tags: categories guessed from the phases alone; inferred)\n";
    for (size_t c = 0; c < kCategoryCount; ++c)
        if (r.categories[c])
            out << "  " << categoryName(Category(c)) << ": " << humanBytesPrecise(r.categories[c]) << '\n';
    out << "  PyTorch cache (reserved, free): " << humanBytesPrecise(r.cache()) << '\n';
    if (r.graphPools) // a part of the above: the graphs' tensors among the categories, their free bytes in
                      // the cache
        out << "  of which CUDA graph private pools: " << humanBytesPrecise(r.graphPools->reserved)
            << " reserved, " << humanBytesPrecise(r.graphPools->inUseTotal()) << " in use, "
            << humanBytesPrecise(r.graphPools->free()) << " free\n";
    // A CUPTI-only recording: every allocation is a driver allocation, PyTorch's caching allocator one owner
    const char* prefix = driverLevel ? "  driver allocations, " : "  outside PyTorch, ";
    for (const auto& [name, bytes] : r.outside)
        out << prefix << name << ": " << humanBytesPrecise(bytes) << '\n';
    if (r.driver)
        out << "  gap to the driver ("
            << (r.driver->processFigure ? "NVML, this process" : "cuMemGetInfo, whole device")
            << "): " << humanBytesPrecise(r.driver->gap()) << " of "
            << humanBytesPrecise(r.driver->driverUsed) << '\n';
}

} // namespace

// `composition FILE [--at S | --at-mark NAME] [--device N] [--json]`: what the memory is made of.
int runComposition(const std::vector<std::string>& args, std::ostream& out) {
    CliArgs a(args, {"--json"}, {"--at", "--at-mark", "--device"});
    auto capture = openCapture(a.file());
    const size_t d = chooseDevice(*capture, a);
    const auto comp = Composition::compute(*capture);
    const CompositionAt r = comp->at(*capture, d, chosenMoment(*capture, d, a), true);
    a.has("--json") ? writeJson(r, *comp, out)
                    : writeText(r, *comp, capture->secondsOf(r.timeUs), capture->capture().nativeStacks, out);
    return 0;
}

} // namespace vs::cli
