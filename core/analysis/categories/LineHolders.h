#pragma once
// What is alive at one moment, by the user's line that made it (CallLine: one forward pass is one
// holder), largest first, with the category that holds most of each line's bytes.
#include "analysis/categories/Categories.h"
#include "analysis/stacks/FrameFilter.h"
#include "model/Capture.h"

#include <string>
#include <vector>

namespace vs {

struct LineHolder {
    StackId stack;      // a stack of the line (the one holding most of its bytes)
    uint32_t frame = 0; // callLineFrame(stack): an index into its frames, or kNoFrame
    int64_t bytes = 0;  // block bytes alive
    uint32_t count = 0; // blocks alive
    Category category = Category::Unknown;
};

// The blocks alive after `event` (an event index of the device), grouped by line; their bytes add up
// to the device's allocated bytes after `event` less what was allocated before the recording began.
std::vector<LineHolder> lineHolders(const Capture& c, const DeviceCategories& cats, uint32_t event);

// "train_step (train.py:41)": the holder's line, or its stack's site for a stack without a user line.
std::string lineText(const Capture& c, const LineHolder& h);

} // namespace vs
