#pragma once
// A Python module of its own made of one recorder source, for the tests that tests/CMakeLists.txt
// builds without torch (vramscope_codec, vramscope_heap): PyInit_NAME() makes module NAME with the
// functions ADD_FUNCTIONS(module) adds. Included only by those builds.
#include <Python.h>

#define VRAMSCOPE_TEST_MODULE(NAME, DOC, ADD_FUNCTIONS)                                                      \
    static PyModuleDef NAME##_definition = {                                                                 \
        PyModuleDef_HEAD_INIT, #NAME, DOC, -1, nullptr, nullptr, nullptr, nullptr, nullptr};                 \
    PyMODINIT_FUNC PyInit_##NAME() {                                                                         \
        PyObject* m = PyModule_Create(&NAME##_definition);                                                   \
        if (m && ADD_FUNCTIONS(m) < 0) Py_CLEAR(m);                                                          \
        return m;                                                                                            \
    }
