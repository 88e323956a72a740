#include "NativeStacks.h"

#include <algorithm>
#include <cstdio>

namespace vs::cupti {

uint64_t NativeStacks::string(const std::string& s) {
    auto [it, fresh] = strings_.emplace(s, strings_.size());
    if (fresh) writer_.write(vscap::StringRecord{s});
    return it->second;
}

// A sanitizer's interceptor (backtrace() itself, under ASan) is not the program's code.
namespace {

bool sanitizerFrame(const std::string& function) {
    return function.starts_with("__interceptor_") || function.starts_with("__sanitizer_") ||
           function.starts_with("__asan_");
}

// Frames inside the driver, CUPTI, the runtime or this agent say nothing about who allocated.
bool internalModule(const std::string& module) {
    for (const char* lib : {"libcuda.so", "libcupti", "libcudart", "libvramscope_cupti"})
        if (module.find(lib) != std::string::npos) return true;
    return false;
}

} // namespace

// The frames of one return address: the functions inlined there, then its own; none for frames
// inside CUDA, CUPTI or the agent.
const std::vector<uint64_t>& NativeStacks::framesOf(void* pc) {
    if (auto it = frames_.find(pc); it != frames_.end()) return it->second;
    auto& ids = frames_[pc];
    const std::vector<NativeFrame> resolved = symbolizer_.resolveAll(pc);
    if (internalModule(resolved.back().module) || sanitizerFrame(resolved.back().function)) return ids;
    for (const NativeFrame& f : resolved) ids.push_back(frameId(f));
    return ids;
}

uint64_t NativeStacks::frameId(const NativeFrame& f) {
    if (f.function == "??") unnamed_.insert(nextFrame_);
    describeModule(f);
    // With DWARF the frame points at its source line; without, at module+offset (the module map in
    // the "module" Meta records lets a later tool symbolize it offline).
    std::string where = f.file;
    if (where.empty()) {
        char offset[32];
        std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(f.offset));
        where = f.module + offset;
    }
    const uint64_t name = string(f.function), file = string(where);
    writer_.write(vscap::FrameRecord{name, file, uint64_t(std::max(f.line, 0))});
    return nextFrame_++;
}

// "module" Meta: "<load address hex> <build id hex or -> <path>", once per module.
void NativeStacks::describeModule(const NativeFrame& f) {
    if (f.module.empty() || !modules_.insert(f.module).second) return;
    char base[32];
    std::snprintf(base, sizeof base, "0x%llx ", static_cast<unsigned long long>(f.base));
    std::string value = base;
    value.append(f.buildId.empty() ? "-" : f.buildId).append(" ").append(f.module);
    meta("module", value);
}

uint64_t NativeStacks::stackOf(const NativeOp& op) {
    std::vector<uint64_t> ids;
    for (int i = 0; i < op.depth; ++i)
        for (uint64_t f : framesOf(op.pcs[i])) ids.push_back(f);
    // A statically linked CUDA runtime leaves unnamed frames above the caller: drop them.
    size_t lead = 0;
    while (lead + 1 < ids.size() && unnamed_.count(ids[lead])) ++lead;
    ids.erase(ids.begin(), ids.begin() + long(lead));
    auto [it, fresh] = stacks_.emplace(ids, stacks_.size());
    if (fresh) writer_.write(vscap::StackRecord{ids});
    return it->second;
}

void NativeStacks::meta(const std::string& key, const std::string& value) {
    writer_.write(vscap::MetaRecord{key, value});
}

} // namespace vs::cupti
