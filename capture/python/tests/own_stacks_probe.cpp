// A Python module for test_own_stacks.py and bench/bench_own_stacks.py (torch-free, against
// tests/torch_headers' stand-in for PyTorch's CapturedTraceback): the recorder's own gatherer of the
// Python stacks of allocator events (vramscope/_own_stacks.h), called as PyTorch's allocator calls it.
//   check() -> '' when the frames it reads equal PyTorch's gather here, else why not
//   context(n) -> (ns per call, number of the stack in the cache or -1 when not cached) for n calls
//   size() -> distinct stacks cached
//   script_frames(n) -> stands for a running TorchScript interpreter with n frames (0: none)
//   parts(n, what) -> (ns per call, checksum): reading the frames alone (0), and with the key (1)
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_own_stacks.h"
#include "_test_module.h"

#include <chrono>
#include <memory>
#include <typeinfo>

namespace {

vramscope_tracker::OwnStacks* stacks = new vramscope_tracker::OwnStacks; // never destroyed, as the tracker's

PyObject* check(PyObject*, PyObject*) {
    return PyUnicode_FromString(stacks->check().c_str());
}

// The context PyTorch's allocator would get for an event here, n times (the last one kept): the
// allocator calls it without the GIL, so it is released around the calls.
PyObject* context(PyObject*, PyObject* arg) {
    const long n = PyLong_AsLong(arg);
    if (n < 1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "n >= 1");
        return nullptr;
    }
    std::shared_ptr<c10::GatheredContext> last;
    std::chrono::steady_clock::duration took{};
    Py_BEGIN_ALLOW_THREADS;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) last = stacks->context();
    took = std::chrono::steady_clock::now() - t0;
    Py_END_ALLOW_THREADS;
    long number = -1;
    if (last && typeid(*last) == typeid(vramscope_tracker::OwnTraceback)) {
        const auto index = static_cast<const vramscope_tracker::OwnTraceback&>(*last).index;
        if (index != vramscope_tracker::OwnTraceback::uncached) number = static_cast<long>(index);
    }
    const double ns = std::chrono::duration<double, std::nano>(took).count() / static_cast<double>(n);
    return Py_BuildValue("(dl)", ns, number);
}

// The parts of context(): reading the frames alone (what = 0), and with the cache's key (what = 1).
PyObject* parts(PyObject*, PyObject* args) {
    long n = 0;
    int what = 0;
    if (!PyArg_ParseTuple(args, "li", &n, &what)) return nullptr;
    vramscope_tracker::RawFrame frames[vramscope_tracker::OwnStacks::maxFrames];
    uint64_t sink = 0;
    std::chrono::steady_clock::duration took{};
    Py_BEGIN_ALLOW_THREADS;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
        const int k = vramscope_tracker::readPythonFrames(frames, vramscope_tracker::OwnStacks::maxFrames);
        if (what == 1 && k > 0)
            sink += vramscope_tracker::StackCache::hash(k, [&frames](size_t j) { return frames[j]; });
        sink += static_cast<uint64_t>(k);
    }
    took = std::chrono::steady_clock::now() - t0;
    Py_END_ALLOW_THREADS;
    const double ns =
        std::chrono::duration<double, std::nano>(took).count() / static_cast<double>(n > 0 ? n : 1);
    return Py_BuildValue("(dK)", ns, static_cast<unsigned long long>(sink));
}

// Stands for a running TorchScript interpreter with n frames (0: none).
PyObject* scriptFrames(PyObject*, PyObject* arg) {
    const long n = PyLong_AsLong(arg);
    if (n < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "n >= 0");
        return nullptr;
    }
    torch::jit::standInScriptFrames().assign(static_cast<size_t>(n), torch::jit::StackEntry{"scripted.py"});
    Py_RETURN_NONE;
}

PyObject* size(PyObject*, PyObject*) {
    return PyLong_FromSize_t(stacks->size());
}

PyMethodDef methods[] = {
    {"check", check, METH_NOARGS, "'' when the frames read here equal PyTorch's gather, else why not"},
    {"context", context, METH_O,
     "(ns per call, cached stack number or -1) of n calls of OwnStacks::context()"},
    {"size", size, METH_NOARGS, "distinct stacks cached"},
    {"script_frames", scriptFrames, METH_O, "stand for a running TorchScript interpreter with n frames"},
    {"parts", parts, METH_VARARGS, "(ns per call, checksum) of n frame reads alone (0) or with the key (1)"},
    {nullptr, nullptr, 0, nullptr}};

int addFunctions(PyObject* m) {
    return PyModule_AddFunctions(m, methods);
}

} // namespace

VRAMSCOPE_TEST_MODULE(vramscope_own_stacks, "the recorder's own gatherer of Python stacks", addFunctions)
