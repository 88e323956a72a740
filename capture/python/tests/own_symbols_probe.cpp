// A Python module for test_own_symbols.py (torch-free, against tests/torch_headers' stand-in for
// PyTorch's CapturedTraceback): the recorder's own symbolization of Python stacks
// (vramscope/_own_symbols.h), which replaces PyTorch's so that torch._inductor is never imported.
//   symbolize([[(code, lasti), ...], ...], [has_cpp_frames, ...]) -> [[(file, name, line), ...], ...]
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_own_symbols.h"
#include "_test_module.h"

#include <memory>
#include <vector>

namespace {

using vramscope_tracker::cppFramesMember;
using vramscope_tracker::framesMember;

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

PyObject* listOf(const std::vector<std::vector<vramscope_tracker::SymFrame>>& stacks) {
    PyObject* out = PyList_New(0);
    for (const auto& stack : stacks) {
        PyObject* frames = PyList_New(0);
        for (const auto& f : stack) {
            PyObject* t = Py_BuildValue("(ssK)", f.file.c_str(), f.name.c_str(),
                                        static_cast<unsigned long long>(f.line));
            PyList_Append(frames, t), Py_DECREF(t);
        }
        PyList_Append(out, frames), Py_DECREF(frames);
    }
    return out;
}

PyObject* symbolize(PyObject*, PyObject* args) {
    PyObject *stacks = nullptr, *cpp = nullptr;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &stacks, &PyList_Type, &cpp)) return nullptr;
    if (PyList_GET_SIZE(stacks) != PyList_GET_SIZE(cpp)) {
        PyErr_SetString(PyExc_ValueError, "one has_cpp_frames flag per stack");
        return nullptr;
    }
    std::vector<std::shared_ptr<torch::CapturedTraceback>> owned(PyList_GET_SIZE(stacks));
    std::vector<torch::CapturedTraceback*> tbs;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(stacks); ++k) {
        if (!tracebackOf(PyList_GET_ITEM(stacks, k), PyObject_IsTrue(PyList_GET_ITEM(cpp, k)) == 1, owned[k]))
            return nullptr;
        tbs.push_back(owned[k].get());
    }
    return listOf(vramscope_tracker::symbolizeStacks(tbs));
}

PyMethodDef methods[] = {
    {"symbolize", symbolize, METH_VARARGS, "symbolizeStacks() of tracebacks made of (code, lasti) lists"},
    {nullptr, nullptr, 0, nullptr}};

int addFunctions(PyObject* m) {
    return PyModule_AddFunctions(m, methods);
}

} // namespace

VRAMSCOPE_TEST_MODULE(vramscope_symbols, "the recorder's own symbolization of Python stacks", addFunctions)
