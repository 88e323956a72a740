#pragma once
// Read access to the private members of PyTorch's CapturedTraceback (included by the tracker only).
// A CapturedTraceback's raw frames and the unwinder that symbolizes them are private. An explicit
// template instantiation may name a private member (C++ [temp.spec]/6): that gives member pointers
// to read and set them.
#include <torch/csrc/profiler/combined_traceback.h>

#include <vector>

namespace vramscope_tracker {

using PyFrames = std::vector<torch::CapturedTraceback::PyFrame>;
using FramesPtr = PyFrames torch::CapturedTraceback::*;
using UnwinderPtr = torch::CapturedTraceback::Python* torch::CapturedTraceback::*;
using CppFramesPtr = std::vector<void*> torch::CapturedTraceback::*;
using ScriptFrames = std::vector<torch::jit::StackEntry>;
using ScriptFramesPtr = ScriptFrames torch::CapturedTraceback::*;
FramesPtr framesMember();
UnwinderPtr unwinderMember();
CppFramesPtr cppFramesMember();
ScriptFramesPtr scriptFramesMember();
template <FramesPtr P> struct FramesAccess {
    friend FramesPtr framesMember() { return P; }
};
template <UnwinderPtr P> struct UnwinderAccess {
    friend UnwinderPtr unwinderMember() { return P; }
};
template <CppFramesPtr P> struct CppFramesAccess {
    friend CppFramesPtr cppFramesMember() { return P; }
};
template <ScriptFramesPtr P> struct ScriptFramesAccess {
    friend ScriptFramesPtr scriptFramesMember() { return P; }
};
template struct FramesAccess<&torch::CapturedTraceback::frames_>;
template struct UnwinderAccess<&torch::CapturedTraceback::python_>;
template struct CppFramesAccess<&torch::CapturedTraceback::cpp_frames_>;
template struct ScriptFramesAccess<&torch::CapturedTraceback::script_frames_>;

// Whether a traceback holds no C++ frames (stacks="all" gathers them): OwnSymbols symbolizes it.
inline bool noCppFrames(torch::CapturedTraceback* tb) {
    return (tb->*cppFramesMember()).empty();
}

// Whether a traceback holds Python frames only (no C++ or TorchScript frames): it is its raw Python
// frames, which the tracker's stack cache keys.
inline bool pythonOnly(torch::CapturedTraceback* tb) {
    return noCppFrames(tb) && (tb->*scriptFramesMember()).empty();
}

} // namespace vramscope_tracker
