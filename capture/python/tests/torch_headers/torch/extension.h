#pragma once
// A stand-in for PyTorch's torch/extension.h: the pybind11 it brings (Debian's pybind11-dev).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
namespace py = pybind11;
