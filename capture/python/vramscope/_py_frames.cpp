// readPythonFrames() (_py_frames.h): CPython 3.11/3.12's frame chain, read as PyEval_GetFrame() and
// PyFrame_GetBack() walk it (incomplete frames skipped) and as PyFrame_GetLasti() counts offsets, so
// that a stack read here is the stack PyTorch would have gathered. The tracker checks that once per
// recording against PyTorch's own gather and uses PyTorch's otherwise. Kept apart from the torch
// headers: only this file sees CPython's internals.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_py_frames.h"

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030D0000 && __has_include(<internal/pycore_frame.h>)
#define VRAMSCOPE_READ_FRAMES 1
#ifndef Py_BUILD_CORE
#define Py_BUILD_CORE 1
#endif
#include <internal/pycore_frame.h>
#endif

namespace vramscope_tracker {

#ifdef VRAMSCOPE_READ_FRAMES
int readPythonFrames(RawFrame* out, int max) {
    if (!Py_IsInitialized() || _Py_IsFinalizing()) return -1;
    PyThreadState* ts = PyGILState_GetThisThreadState(); // this thread's, GIL or not
    if (ts == nullptr || ts->cframe == nullptr) return 0;
    int n = 0;
    for (_PyInterpreterFrame* f = ts->cframe->current_frame; f != nullptr; f = f->previous) {
        if (_PyFrame_IsIncomplete(f)) continue;
        if (n == max) return -1;
        const int lasti = _PyInterpreterFrame_LASTI(f);
        out[n++] = RawFrame{f->f_code, lasti < 0 ? -1 : lasti * static_cast<int>(sizeof(_Py_CODEUNIT))};
    }
    return n;
}
#else
int readPythonFrames(RawFrame*, int) {
    return -1;
}
#endif

} // namespace vramscope_tracker
