#include "ContextDiff.h"

#include "util/Format.h"

#include <map>

namespace vs {
namespace {

using Facts = std::map<std::string, std::string>;
const std::string kNone = "(none)";

Facts allocatorFacts(const AllocatorSettings& s) {
    Facts f;
    if (!s.present) return f;
    f["allocator: PYTORCH_CUDA_ALLOC_CONF"] = s.allocConf.empty() ? "(unset)" : s.allocConf;
    f["allocator: expandable_segments"] = s.expandableSegments ? "true" : "false";
    f["allocator: max_split_size"] =
        s.maxSplitSize == UINT64_MAX ? "unlimited" : humanBytes(int64_t(s.maxSplitSize));
    f["allocator: garbage_collection_threshold"] = std::to_string(s.garbageCollectionThreshold);
    for (const auto& [k, v] : s.raw) f["allocator: " + k] = v;
    return f;
}

Facts deviceFacts(const Capture& c) {
    Facts f;
    f["devices recorded"] = std::to_string(c.devices.size());
    for (const auto& d : c.deviceInfo)
        f["device " + std::to_string(d.device)] = d.name + ", " + humanBytes(int64_t(d.totalMemory));
    return f;
}

Facts recorderFacts(const Capture& c) {
    Facts f;
    f["format"] = c.format;
    f["recorded at"] = c.nativeStacks ? "the CUDA driver (native stacks)" : "PyTorch's allocator";
    for (const auto& [k, v] : c.meta)
        if (k != "pid") f[k] = v; // a process id always differs
    return f;
}

void compareFacts(const Facts& a, const Facts& b, std::vector<ContextDifference>& out) {
    std::map<std::string, std::pair<std::string, std::string>> all;
    for (const auto& [k, v] : a) all[k].first = v;
    for (const auto& [k, v] : b) all[k].second = v;
    for (const auto& [k, v] : all) {
        const bool inA = a.count(k), inB = b.count(k);
        if (inA && inB && v.first == v.second) continue;
        out.push_back({k, inA ? v.first : kNone, inB ? v.second : kNone});
    }
}

} // namespace

std::vector<ContextDifference> contextDifferences(const Capture& a, const Capture& b) {
    std::vector<ContextDifference> out;
    // the order the report says them in: allocator, devices, torch and the recorder
    compareFacts(allocatorFacts(a.settings), allocatorFacts(b.settings), out);
    compareFacts(deviceFacts(a), deviceFacts(b), out);
    Facts ra = recorderFacts(a), rb = recorderFacts(b);
    for (const char* first : {"torch", "recorder"}) {
        Facts fa, fb;
        if (ra.count(first)) fa[first] = ra[first], ra.erase(first);
        if (rb.count(first)) fb[first] = rb[first], rb.erase(first);
        compareFacts(fa, fb, out);
    }
    compareFacts(ra, rb, out);
    return out;
}

} // namespace vs
