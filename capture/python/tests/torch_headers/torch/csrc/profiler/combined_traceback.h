#pragma once
// A stand-in for PyTorch's torch/csrc/profiler/combined_traceback.h (torch 2.11's layout of the
// members the recorder reads: frames_, cpp_frames_, script_frames_, python_), so that the probes in
// capture/python/tests compile vramscope/_own_symbols.h and _own_stacks.h without torch. Its
// symbolize() stands for PyTorch's: every frame it gives is ("<pytorch>", "symbolize", number of
// Python frames), so a test sees which tracebacks went to PyTorch; its gather() walks the frames as
// PyTorch's does (PyEval_GetFrame, PyFrame_GetBack, PyFrame_GetLasti; the code objects referenced).
#include <Python.h>
#include <c10/core/Allocator.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace torch {
namespace jit {
// A script frame's place: (file, line, column), or none when its source is unknown.
struct SourceRange {
    std::optional<std::tuple<std::string, size_t, size_t>> place;
    std::optional<std::tuple<std::string, size_t, size_t>> file_line_col() const { return place; }
};
struct StackEntry {
    std::string filename; // the function's name, as TorchScript puts it
    SourceRange range;
};
// The TorchScript frames of the running interpreter; a test fills them to stand for one.
inline std::vector<StackEntry>& standInScriptFrames() {
    static std::vector<StackEntry> frames;
    return frames;
}
inline std::vector<StackEntry> currentCallstack() {
    return standInScriptFrames();
}
} // namespace jit
namespace unwind {
struct Frame {
    std::string filename, funcname;
    uint64_t lineno;
};
} // namespace unwind

struct SymbolizedTracebacks {
    std::vector<unwind::Frame> all_frames;
    std::vector<std::vector<uint64_t>> tracebacks;
};

struct CapturedTraceback : public c10::GatheredContext {
    struct PyFrame {
        void* code;
        int lasti;
    };
    struct Python {
        virtual ~Python() = default;
    };
    CapturedTraceback() = default;
    static std::shared_ptr<CapturedTraceback> gather(bool python, bool, bool) {
        static Python unwinder;
        auto tb = std::make_shared<CapturedTraceback>();
        if (!python) return tb;
        const PyGILState_STATE gil = PyGILState_Ensure();
#if PY_VERSION_HEX >= 0x030B0000
        PyFrameObject* f = PyEval_GetFrame();
        Py_XINCREF(f);
        while (f != nullptr) {
            tb->frames_.push_back({PyFrame_GetCode(f), PyFrame_GetLasti(f)}); // a reference, as PyTorch's
            PyFrameObject* back = PyFrame_GetBack(f);
            Py_DECREF(f);
            f = back;
        }
#endif
        tb->python_ = &unwinder;
        PyGILState_Release(gil);
        return tb;
    }
    CapturedTraceback(const CapturedTraceback&) = delete;
    CapturedTraceback& operator=(const CapturedTraceback&) = delete;

  private:
    std::vector<PyFrame> frames_;
    std::vector<void*> cpp_frames_;
    std::vector<jit::StackEntry> script_frames_;
    Python* python_ = nullptr;
    friend SymbolizedTracebacks symbolize(const std::vector<CapturedTraceback*>& to_symbolize);
};

inline SymbolizedTracebacks symbolize(const std::vector<CapturedTraceback*>& to_symbolize) {
    SymbolizedTracebacks out;
    for (auto* tb : to_symbolize) {
        out.tracebacks.push_back({out.all_frames.size()});
        out.all_frames.push_back({"<pytorch>", "symbolize", tb->frames_.size()});
    }
    return out;
}

} // namespace torch
