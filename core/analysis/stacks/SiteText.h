#pragma once
// How sentences name code: "function (file.py:17)", the allocation site of a stack.
#include "model/Capture.h"

#include <string>

namespace vs {

// "name (basename:line)"; C++ names without their parameter lists, no ":0" for frames without lines.
std::string frameText(const Capture& c, FrameId f);
// The allocation site of a stack (its innermost user frame), or words for a stack without frames.
std::string siteText(const Capture& c, StackId s);

} // namespace vs
