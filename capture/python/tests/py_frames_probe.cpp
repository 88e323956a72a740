// A Python module for test_py_frames.py (torch-free): the recorder's GIL-free frame reader
// (vramscope/_py_frames.cpp) next to the walk PyTorch's gather does (PyEval_GetFrame, PyFrame_GetBack,
// PyFrame_GetLasti), taken in the same call so that both see the same frames.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_py_frames.h"

#include <thread>

namespace {

using vramscope_tracker::RawFrame;
constexpr int kMax = 64;

PyObject* frameList(const RawFrame* f, int n) {
    PyObject* list = PyList_New(0);
    for (int i = 0; list && i < n; ++i) {
        PyObject* t = Py_BuildValue("(ni)", reinterpret_cast<Py_ssize_t>(f[i].code), f[i].lasti);
        if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
        Py_XDECREF(t);
    }
    return list;
}

PyObject* pytorchsWalk() {
    PyObject* list = PyList_New(0);
#if PY_VERSION_HEX >= 0x030B0000 // before: no PyFrame_GetLasti, and the reader says -1 (nothing to compare)
    PyFrameObject* f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f && list) {
        PyCodeObject* code = PyFrame_GetCode(f);
        PyObject* t = Py_BuildValue("(ni)", reinterpret_cast<Py_ssize_t>(code), PyFrame_GetLasti(f));
        Py_DECREF(code);
        if (!t || PyList_Append(list, t) < 0) Py_CLEAR(list);
        Py_XDECREF(t);
        PyFrameObject* back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
#endif
    return list;
}

// (frames read, PyTorch's walk, count read): count -1 when the reader cannot read them.
PyObject* both(PyObject*, PyObject*) {
    RawFrame f[kMax];
    const int n = vramscope_tracker::readPythonFrames(f, kMax);
    return Py_BuildValue("(NNi)", frameList(f, n < 0 ? 0 : n), pytorchsWalk(), n);
}

// The reader with the GIL released (as in an allocation inside a torch op): its frames.
PyObject* withoutGil(PyObject*, PyObject*) {
    RawFrame f[kMax];
    int n;
    Py_BEGIN_ALLOW_THREADS n = vramscope_tracker::readPythonFrames(f, kMax);
    Py_END_ALLOW_THREADS return Py_BuildValue("(Ni)", frameList(f, n < 0 ? 0 : n), n);
}

// The reader on a thread Python never saw (as the CUDA allocator's callers in C++ threads): its count.
PyObject* onForeignThread(PyObject*, PyObject*) {
    int n = -2;
    Py_BEGIN_ALLOW_THREADS std::thread([&n] {
        RawFrame f[kMax];
        n = vramscope_tracker::readPythonFrames(f, kMax);
    }).join();
    Py_END_ALLOW_THREADS return PyLong_FromLong(n);
}

PyMethodDef methods[] = {
    {"both", both, METH_NOARGS, "(frames read, PyTorch's walk, count read)"},
    {"without_gil", withoutGil, METH_NOARGS, "(frames read with the GIL released, count)"},
    {"on_foreign_thread", onForeignThread, METH_NOARGS, "the count read on a thread without Python"},
    {nullptr, nullptr, 0, nullptr}};
PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "vramscope_py_frames", nullptr, -1, methods};

} // namespace

PyMODINIT_FUNC PyInit_vramscope_py_frames() {
    return PyModule_Create(&moduleDef);
}
