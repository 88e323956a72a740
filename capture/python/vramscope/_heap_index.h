#pragma once
// The retention walk's reverse index of the heap, in C (_heap_index.cpp): what retention.py's
// Python _build() does, ~10x faster, so that the graph at exit fits a small pause budget.
#include <Python.h>

namespace vramscope_heap {

int addFunctions(PyObject* module); // heap_types(), heap_index(); 0, or -1 with a Python error set

} // namespace vramscope_heap
