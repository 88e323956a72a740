#pragma once
// Where the CUPTI agent (libvramscope_cupti.so) is, for `vramscope-cli run` and Capture > Launch
// Program: $VRAMSCOPE_CUPTI_LIB, else beside the running binary (a build tree), else where
// `cmake --install` and the .deb put it (PREFIX/lib/vramscope, the binary being in PREFIX/bin).
#include <string>

namespace vs {

std::string cuptiAgentPath();
// False when no NVIDIA driver library (libcuda.so.1) can be loaded: a program cannot reach a GPU.
bool cudaDriverPresent();

} // namespace vs
