#pragma once
// The compiled half of the recorder's one .vscap encoder (_codec.cpp): core's codec, callable from
// Python. The tracker (_tracker.cpp) shares its interner with these functions.
#include <Python.h>

#include "_interner.h"

#include <mutex>

namespace vramscope_codec {

vramscope_tracker::Interner& interner(); // the module's one numbering of a file's ids
std::mutex& internMutex();               // guards interner(): the writer thread's drain(), Python's calls
int addFunctions(PyObject* module);      // 0, or -1 with a Python error set

} // namespace vramscope_codec
