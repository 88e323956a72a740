#pragma once
// Python stacks symbolized by vramscope: for a traceback without C++ frames, the frames PyTorch's
// symbolize() gives (file, function and line of each frame; after a frame of inductor-generated code
// the frames that code stands for), read from the code objects here. Why not PyTorch's: its Python
// unwinder asks hasattr(torch, "_inductor"), and torch imports torch._inductor lazily on that
// question: ~4.5 s measured on the H200 (tests/gpu/import_cost.py) in a program that never compiles,
// and on the writer thread an import racing the program's own imports. Generated code exists only
// after torch._inductor.codecache has been imported, so asking it only then gives the same frames.
// Included by the tracker only; every call with the GIL held.
#include "_traceback_access.h"

#include <Python.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace vramscope_tracker {

// Symbolizes into a SymbolizedTracebacks (PyTorch's own result type: each distinct frame once in
// all_frames, each traceback a list of indices into it). Every call with the GIL held.
class OwnSymbols {
  public:
    explicit OwnSymbols(std::vector<torch::unwind::Frame>& allFrames)
        : all_(allFrames), inductorFrames_(inductorFrames()) {}
    ~OwnSymbols() { Py_XDECREF(inductorFrames_); }
    OwnSymbols(const OwnSymbols&) = delete;
    OwnSymbols& operator=(const OwnSymbols&) = delete;

    // Appends the frames of `frames` (innermost first, as PyTorch lists them) to `stack`.
    void append(const PyFrames& frames, std::vector<uint64_t>& stack) {
        for (const auto& f : frames) {
            const auto key = std::make_pair(static_cast<const void*>(f.code), f.lasti);
            auto it = memo_.find(key);
            if (it == memo_.end()) it = memo_.emplace(key, symbolize(f.code, f.lasti)).first;
            stack.insert(stack.end(), it->second.begin(), it->second.end());
        }
    }

    // Appends the TorchScript frames of a traceback, as PyTorch's symbolize() gives them (before the
    // Python frames when there are no C++ frames; the function's name is in StackEntry::filename).
    void appendScript(const ScriptFrames& frames, std::vector<uint64_t>& stack) {
        for (const auto& f : frames) {
            const auto flc = f.range.file_line_col();
            stack.push_back(flc ? add(std::get<0>(*flc), f.filename, std::get<1>(*flc))
                                : add("??", f.filename, 0));
        }
    }

  private:
    // PyCodeCache.stack_frames_for_code when torch._inductor.codecache is imported, else null.
    static PyObject* inductorFrames() {
        PyObject* codecache = PyDict_GetItemString(PyImport_GetModuleDict(), "torch._inductor.codecache");
        if (codecache == nullptr) return nullptr;
        PyObject* cache = PyObject_GetAttrString(codecache, "PyCodeCache");
        PyObject* fn = cache ? PyObject_GetAttrString(cache, "stack_frames_for_code") : nullptr;
        Py_XDECREF(cache);
        if (fn == nullptr) PyErr_Clear();
        return fn;
    }

    static std::string text(PyObject* s) {
        Py_ssize_t n = 0;
        const char* utf8 = s && PyUnicode_Check(s) ? PyUnicode_AsUTF8AndSize(s, &n) : nullptr;
        if (utf8 == nullptr) {
            PyErr_Clear();
            return {};
        }
        return std::string(utf8, static_cast<size_t>(n));
    }

    static std::string item(PyObject* dict, const char* key) {
        PyObject* v = PyMapping_GetItemString(dict, key);
        std::string s = text(v);
        Py_XDECREF(v);
        return s;
    }

    // The frame and the generated-code frames it stands for, added to all_frames: their indices.
    std::vector<uint64_t> symbolize(void* raw, int lasti) {
        auto* code = reinterpret_cast<PyCodeObject*>(raw);
        const int line = PyCode_Addr2Line(code, lasti);
        std::vector<uint64_t> out{
            add(text(code->co_filename), text(code->co_name), static_cast<uint64_t>(line))};
        if (inductorFrames_ == nullptr) return out;
        PyObject* extra = PyObject_CallFunction(inductorFrames_, "Oi", code->co_filename, line);
        PyObject* it = extra && extra != Py_None ? PyObject_GetIter(extra) : nullptr;
        while (PyObject* h = it ? PyIter_Next(it) : nullptr) {
            PyObject* l = PyMapping_GetItemString(h, "line");
            const unsigned long long n = l && PyLong_Check(l) ? PyLong_AsUnsignedLongLongMask(l) : 0;
            PyErr_Clear(); // no lookup below may run with an exception set
            out.push_back(add(item(h, "filename"), item(h, "name"), static_cast<uint64_t>(n)));
            Py_XDECREF(l), Py_DECREF(h);
        }
        Py_XDECREF(it), Py_XDECREF(extra);
        PyErr_Clear(); // a failing lookup gives the frame without its generated-code frames
        return out;
    }

    uint64_t add(std::string file, std::string name, uint64_t line) {
        all_.push_back(torch::unwind::Frame{std::move(file), std::move(name), line});
        return all_.size() - 1;
    }

    std::vector<torch::unwind::Frame>& all_;
    PyObject* inductorFrames_;
    std::map<std::pair<const void*, int>, std::vector<uint64_t>> memo_; // (code, lasti) -> indices
};

// The GIL for a scope, from a thread that may or may not hold it; released however the scope ends
// (an exception left through a bare PyGILState_Release would leave this thread holding it).
struct GilHeld {
    GilHeld() : state(PyGILState_Ensure()) {}
    ~GilHeld() { PyGILState_Release(state); }
    GilHeld(const GilHeld&) = delete;
    GilHeld& operator=(const GilHeld&) = delete;
    PyGILState_STATE state;
};

// The tracebacks symbolized as torch::symbolize() gives them (lineno: PyCode_Addr2Line's -1 wraps
// to 2^64-1 as there): those of Python and TorchScript frames here (TorchScript's first, as there),
// those with C++ frames (stacks="all") by PyTorch. With or without the GIL held (both take it as
// needed).
inline torch::SymbolizedTracebacks symbolizeStacks(const std::vector<torch::CapturedTraceback*>& tbs) {
    torch::SymbolizedTracebacks out;
    out.tracebacks.resize(tbs.size());
    std::vector<torch::CapturedTraceback*> theirs;
    std::vector<size_t> at;
    for (size_t k = 0; k < tbs.size(); ++k)
        if (!noCppFrames(tbs[k])) theirs.push_back(tbs[k]), at.push_back(k);
    if (theirs.size() < tbs.size()) {
        const GilHeld gil;
        OwnSymbols own(out.all_frames);
        for (size_t k = 0; k < tbs.size(); ++k)
            if (noCppFrames(tbs[k])) {
                own.appendScript(tbs[k]->*scriptFramesMember(), out.tracebacks[k]);
                own.append(tbs[k]->*framesMember(), out.tracebacks[k]);
            }
    }
    if (theirs.empty()) return out;
    auto sym = torch::symbolize(theirs);
    const uint64_t offset = out.all_frames.size();
    std::move(sym.all_frames.begin(), sym.all_frames.end(), std::back_inserter(out.all_frames));
    for (size_t j = 0; j < theirs.size(); ++j)
        for (uint64_t f : sym.tracebacks[j]) out.tracebacks[at[j]].push_back(offset + f);
    return out;
}

} // namespace vramscope_tracker
