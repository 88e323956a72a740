#pragma once
// The user's line that made a block, as a person reading the training loop names it: for memory made
// inside a module call (`out = model(x)`: every layer's activations, each from its own stack), the
// line that called the outermost module; otherwise the allocation site (firstUserFrame). So one
// forward pass is one holder, not one per layer.
#include "analysis/stacks/FrameFilter.h"
#include "model/Capture.h"

namespace vs {

// An index into c.stacks.frames(s), or kNoFrame for a stack without frames.
uint32_t callLineFrame(const Capture& c, StackId s);

} // namespace vs
