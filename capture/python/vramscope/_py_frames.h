#pragma once
// The calling thread's Python stack, read the way PyTorch's CapturedTraceback::gather() takes it
// (each frame's code object and the byte offset of its last instruction, innermost first) but
// without the GIL and without materialising frame objects: a thread's own frame chain only changes
// on that thread, so while it is inside an allocation its frames and their code objects stand still.
// That needs CPython's internal frame layout (_py_frames.cpp), known here for Python 3.11 to 3.13;
// elsewhere readPythonFrames() answers -1 and the tracker leaves stacks to PyTorch.
#include "_stack_cache.h"

namespace vramscope_tracker {

// Frames into out[0..max), innermost first; their count (0: the thread runs no Python code), or -1
// when they cannot be read this way (another Python, the interpreter finalizing, more than max).
int readPythonFrames(RawFrame* out, int max);

} // namespace vramscope_tracker
