#include "analysis/stacks/FrameFilter.h"

#include "analysis/stacks/NativeOwner.h"

#include <array>

namespace vs {
namespace {

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

} // namespace

bool isInternalName(std::string_view name) {
    // Native frames the CUPTI agent could not name ("??" in "module+0xoffset") are runtime internals.
    if (name == "??") return true;
    // memory_viz hides these names; they are interpreter and unwinder plumbing.
    static constexpr std::array<std::string_view, 8> internalNames = {
        "unwind::unwind",    "CapturedTraceback::gather",
        "gather_with_cpp",   "_start",
        "__libc_start_main", "PyEval_",
        "PyObject_",         "PyFunction_"};
    for (auto n : internalNames)
        if (contains(name, n)) return true;
    return false;
}

FrameKind classifyFile(std::string_view filename) {
    // C++ frames from stacks="all": '??' or a bare source basename, line 0 in release builds.
    if (filename == "??" || filename.empty() || endsWith(filename, ".cpp") || endsWith(filename, ".cc") ||
        endsWith(filename, ".h") || endsWith(filename, ".c") || endsWith(filename, ".cu"))
        return FrameKind::Internal;
    // vramscope's own recorder running the program (python -m vramscope record): plumbing too
    if (contains(filename, "vramscope/__main__.py") || contains(filename, "vramscope/recorder.py"))
        return FrameKind::Internal;
    if (contains(filename, "/site-packages/") || contains(filename, "/dist-packages/") ||
        contains(filename, "/lib/python3") || contains(filename, "/torch/") || filename.front() == '<')
        return FrameKind::Python; // library Python code: shown, but not the user's own
    return FrameKind::User;
}

FrameKind classifyFrame(std::string_view name, std::string_view filename) {
    return isInternalName(name) ? FrameKind::Internal : classifyFile(filename);
}

FrameKind classifyNativeFrame(std::string_view name, std::string_view filename) {
    if (name == "??" || name.starts_with("libcudart_static_")) return FrameKind::Internal;
    // CUDA API entry points linked into the program (cudaMalloc, cuMemAlloc: no source line, only
    // "module+0xoffset") or inlined from the toolkit's headers (cudaMalloc<T>), and the C runtime's
    // start-up are plumbing, not the caller.
    const bool noSource = contains(filename, "+0x");
    const bool cudaApi = name.starts_with("cuda") ||
                         (name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z');
    const bool toolkitHeader = contains(filename, "/targets/") || contains(filename, "cuda_runtime");
    if ((cudaApi && (noSource || toolkitHeader)) ||
        (noSource && (name == "_start" || name.starts_with("__libc_start"))))
        return FrameKind::Internal;
    if (contains(filename, "/libc.so") || contains(filename, "/libstdc++.so")) return FrameKind::Internal;
    // PyTorch, the CUDA libraries and the interpreter: library code, the way site-packages is for Python
    if (isLibraryModule(filename)) return FrameKind::Python;
    return FrameKind::User;
}

std::string_view withoutParameters(std::string_view name) {
    size_t end = name.size();
    while (end > 0 && name[end - 1] != ')') --end; // past " const", " &&"...
    if (end == 0 || end + 8 < name.size()) return name;
    int depth = 0;
    for (size_t i = end; i-- > 0;) { // back to the '(' that opens the parameter list
        depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
        if (depth == 0) return i > 0 ? name.substr(0, i) : name;
    }
    return name;
}

uint32_t firstUserFrame(const Capture& c, StackId s) {
    auto frames = c.stacks.frames(s);
    // the user's own code, else library Python code, else the first C++ frame that is not the
    // unwinder or the allocator itself (stacks of the autograd thread have no Python frames)
    for (FrameKind want : {FrameKind::User, FrameKind::Python})
        for (size_t i = 0; i < frames.size(); ++i)
            if (classifyFrame(c, frames[i]) == want) return static_cast<uint32_t>(i);
    for (size_t i = 0; i < frames.size(); ++i) {
        const auto name = c.strings.text(c.frames[frames[i]].name);
        if (!contains(name, "unwind") && !contains(name, "Traceback") && !contains(name, "gather") &&
            !contains(name, "CachingAllocator") && !contains(name, "c10::") && !contains(name, "Allocator::"))
            return static_cast<uint32_t>(i);
    }
    return frames.empty() ? kNoFrame : 0;
}

std::vector<FrameId> shownFrames(const Capture& c, StackId s, bool hideInternal, bool hideLibraries) {
    const auto frames = c.stacks.frames(s);
    const uint32_t site = hideLibraries ? firstUserFrame(c, s) : kNoFrame;
    std::vector<FrameId> out;
    for (size_t i = 0; i < frames.size(); ++i) {
        const FrameKind k = classifyFrame(c, frames[i]);
        if ((hideInternal && k == FrameKind::Internal) ||
            (hideLibraries && k == FrameKind::Python && i != site))
            continue;
        out.push_back(frames[i]);
    }
    return out;
}

} // namespace vs
