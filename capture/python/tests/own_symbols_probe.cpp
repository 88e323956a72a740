// A Python module for test_own_symbols.py (torch-free, against tests/torch_headers' stand-in for
// PyTorch's CapturedTraceback): the recorder's own symbolization of Python stacks
// (vramscope/_own_symbols.h), which replaces PyTorch's so that torch._inductor is never imported.
//   symbolize([[(code, lasti), ...], ...], [has_cpp_frames, ...][, [script frames or None, ...]])
//       -> [[(file, name, line), ...], ...]; script frames: [(function, file or None, line)]
//   distinct() -> how many distinct frames the last symbolize() gave
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_own_symbols.h"
#include "_test_module.h"

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace {

using vramscope_tracker::cppFramesMember;
using vramscope_tracker::framesMember;

// TorchScript frames from [(function, file or None, line)]: a frame without a file has no source.
bool scriptOf(PyObject* frames, torch::CapturedTraceback& tb) {
    if (frames == Py_None) return true;
    PyObject* seq = PySequence_Fast(frames, "script frames are a list of (function, file or None, line)");
    if (seq == nullptr) return false;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
        const char *name = nullptr, *file = nullptr;
        Py_ssize_t line = 0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "szn", &name, &file, &line)) {
            Py_DECREF(seq);
            return false;
        }
        torch::jit::StackEntry e{name, {}};
        if (file) e.range.place = std::make_tuple(std::string(file), static_cast<size_t>(line), size_t(0));
        (tb.*vramscope_tracker::scriptFramesMember()).push_back(std::move(e));
    }
    Py_DECREF(seq);
    return true;
}

// One traceback per list of (code, lasti); the caller's lists keep the code objects alive.
bool tracebackOf(PyObject* frames, bool cpp, std::shared_ptr<torch::CapturedTraceback>& tb) {
    tb = std::make_shared<torch::CapturedTraceback>();
    PyObject* seq = PySequence_Fast(frames, "a stack is a list of (code, lasti)");
    if (seq == nullptr) return false;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
        PyObject* code = nullptr;
        int lasti = 0;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "O!i", &PyCode_Type, &code, &lasti)) {
            Py_DECREF(seq);
            return false;
        }
        (tb.get()->*framesMember()).push_back({code, lasti});
    }
    Py_DECREF(seq);
    if (cpp) (tb.get()->*cppFramesMember()).push_back(nullptr); // symbolized by "PyTorch"
    return true;
}

// [[(file, name, line), ...], ...]: each traceback's frames from the shared list of distinct ones.
PyObject* listOf(const torch::SymbolizedTracebacks& sym) {
    PyObject* out = PyList_New(0);
    for (const auto& stack : sym.tracebacks) {
        PyObject* frames = PyList_New(0);
        for (uint64_t f : stack) {
            const auto& frame = sym.all_frames[f];
            PyObject* t = Py_BuildValue("(ssK)", frame.filename.c_str(), frame.funcname.c_str(),
                                        static_cast<unsigned long long>(frame.lineno));
            PyList_Append(frames, t), Py_DECREF(t);
        }
        PyList_Append(out, frames), Py_DECREF(frames);
    }
    return out;
}

// How many distinct frames the last symbolize() gave (each once in all_frames).
size_t lastDistinct = 0;

PyObject* symbolize(PyObject*, PyObject* args) {
    PyObject *stacks = nullptr, *cpp = nullptr, *scripts = nullptr;
    if (!PyArg_ParseTuple(args, "O!O!|O!", &PyList_Type, &stacks, &PyList_Type, &cpp, &PyList_Type, &scripts))
        return nullptr;
    if (scripts && PyList_GET_SIZE(scripts) != PyList_GET_SIZE(stacks)) {
        PyErr_SetString(PyExc_ValueError, "one list of script frames (or None) per stack");
        return nullptr;
    }
    if (PyList_GET_SIZE(stacks) != PyList_GET_SIZE(cpp)) {
        PyErr_SetString(PyExc_ValueError, "one has_cpp_frames flag per stack");
        return nullptr;
    }
    std::vector<std::shared_ptr<torch::CapturedTraceback>> owned(PyList_GET_SIZE(stacks));
    std::vector<torch::CapturedTraceback*> tbs;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(stacks); ++k) {
        if (!tracebackOf(PyList_GET_ITEM(stacks, k), PyObject_IsTrue(PyList_GET_ITEM(cpp, k)) == 1,
                         owned[k]) ||
            (scripts && !scriptOf(PyList_GET_ITEM(scripts, k), *owned[k])))
            return nullptr;
        tbs.push_back(owned[k].get());
    }
    const auto sym = vramscope_tracker::symbolizeStacks(tbs);
    lastDistinct = sym.all_frames.size();
    return listOf(sym);
}

PyObject* distinct(PyObject*, PyObject*) {
    return PyLong_FromSize_t(lastDistinct);
}

PyMethodDef methods[] = {
    {"symbolize", symbolize, METH_VARARGS, "symbolizeStacks() of tracebacks made of (code, lasti) lists"},
    {"distinct", distinct, METH_NOARGS, "how many distinct frames the last symbolize() gave"},
    {nullptr, nullptr, 0, nullptr}};

int addFunctions(PyObject* m) {
    return PyModule_AddFunctions(m, methods);
}

} // namespace

VRAMSCOPE_TEST_MODULE(vramscope_symbols, "the recorder's own symbolization of Python stacks", addFunctions)
