// readPythonFrames() (_py_frames.h): CPython 3.11-3.13's frame chain, read as PyEval_GetFrame() and
// PyFrame_GetBack() walk it (incomplete frames skipped) and as PyFrame_GetLasti() counts offsets, so
// that a stack read here is the stack PyTorch would have gathered. The tracker checks that once per
// recording against PyTorch's own gather and uses PyTorch's otherwise. Kept apart from the torch
// headers: only this file sees CPython's internals.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_py_frames.h"

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000 && __has_include(<internal/pycore_frame.h>)
#define VRAMSCOPE_READ_FRAMES 1
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1
#endif
#include <internal/pycore_frame.h>
#endif

namespace vramscope_tracker {

#ifdef VRAMSCOPE_READ_FRAMES
namespace {
// Where 3.13 moved things: the top frame is the thread state's own (no _PyCFrame), the code is
// behind f_executable, and finalizing has a public name.
#if PY_VERSION_HEX >= 0x030D0000
_PyInterpreterFrame* topFrame(PyThreadState* ts) {
    return ts->current_frame;
}
const void* codeOf(_PyInterpreterFrame* f) {
    return _PyFrame_GetCode(f);
}
bool finalizing() {
    return Py_IsFinalizing();
}
#else
_PyInterpreterFrame* topFrame(PyThreadState* ts) {
    return ts->cframe != nullptr ? ts->cframe->current_frame : nullptr;
}
const void* codeOf(_PyInterpreterFrame* f) {
    return f->f_code;
}
bool finalizing() {
    return _Py_IsFinalizing();
}
#endif
} // namespace

int readPythonFrames(RawFrame* out, int max) {
    if (!Py_IsInitialized() || finalizing()) return -1;
    PyThreadState* ts = PyGILState_GetThisThreadState(); // this thread's, GIL or not
    if (ts == nullptr) return 0;
    int n = 0;
    for (_PyInterpreterFrame* f = topFrame(ts); f != nullptr; f = f->previous) {
        if (_PyFrame_IsIncomplete(f)) continue; // shims and frames not started (3.13: C-stack ones too)
        if (n == max) return -1;
        const int lasti = _PyInterpreterFrame_LASTI(f);
        out[n++] = RawFrame{codeOf(f), lasti < 0 ? -1 : lasti * static_cast<int>(sizeof(_Py_CODEUNIT))};
    }
    return n;
}
#else
int readPythonFrames(RawFrame*, int) {
    return -1;
}
#endif

} // namespace vramscope_tracker
