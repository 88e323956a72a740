#pragma once
// A stand-in for PyTorch's torch/csrc/profiler/combined_traceback.h (torch 2.11's layout of the
// members the recorder reads: frames_, cpp_frames_, script_frames_, python_), so that
// own_symbols_probe.cpp can compile vramscope/_own_symbols.h without torch. Its symbolize() stands
// for PyTorch's: every frame it gives is ("<pytorch>", "symbolize", number of Python frames), so a
// test sees which tracebacks went to PyTorch.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace c10 {
struct GatheredContext {
    virtual ~GatheredContext() = default;
};
} // namespace c10

namespace torch {
namespace jit {
struct StackEntry {
    std::string filename;
};
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
