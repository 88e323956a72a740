#pragma once
// Tells a user's own frames from internal ones (PyTorch, CPython, the C++ runtime), so views can
// emphasise the former and fold the latter behind a toggle. Frames are never dropped.
#include "model/Capture.h"

#include <string_view>
#include <vector>

namespace vs {

enum class FrameKind { User, Python, Internal };

FrameKind classifyFrame(std::string_view name, std::string_view filename);
// classifyFrame's two halves, for callers that classify a file once for all its frames: a frame is
// Internal when its name says so, else what its file says.
bool isInternalName(std::string_view name);
FrameKind classifyFile(std::string_view filename);
// Frames of a program recorded at the CUDA level: its own C/C++/CUDA code is the user's.
FrameKind classifyNativeFrame(std::string_view name, std::string_view filename);

inline FrameKind classifyFrame(const Capture& c, FrameId f) {
    const auto name = c.strings.text(c.frames[f].name), file = c.strings.text(c.frames[f].filename);
    return c.nativeStacks ? classifyNativeFrame(name, file) : classifyFrame(name, file);
}

// A demangled C++ signature without its parameter list and trailing qualifiers, for sentences:
// "ns::A::f(int, std::vector<int> const&) const" -> "ns::A::f"; other names unchanged.
std::string_view withoutParameters(std::string_view name);

// The allocation site: the innermost frame of the user's own code; failing that, of library Python
// code; failing that, the first C++ frame past the unwinder and the allocator (kNoFrame: no stack).
constexpr uint32_t kNoFrame = UINT32_MAX;
uint32_t firstUserFrame(const Capture& c, StackId s);

// The frames of a stack a view shows, innermost first: internal ones left out when `hideInternal`,
// library ones (torch, lightning, runpy, PyTorch's and CUDA's modules) when `hideLibraries`, except
// the allocation site of a stack that has no frame of the user's own.
std::vector<FrameId> shownFrames(const Capture& c, StackId s, bool hideInternal, bool hideLibraries);

} // namespace vs
