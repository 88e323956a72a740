#include "analysis/stacks/CallLine.h"

#include <string_view>

namespace vs {

namespace {

bool endsWith(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// torch.nn.Module.__call__'s frames: what every `module(x)` goes through.
bool isModuleCall(const Capture& c, FrameId f) {
    const std::string_view name = c.strings.text(c.frames[f].name);
    return (name == "_call_impl" || name == "_wrapped_call_impl") &&
           endsWith(c.strings.text(c.frames[f].filename), "torch/nn/modules/module.py");
}

} // namespace

uint32_t callLineFrame(const Capture& c, StackId s) {
    const auto frames = c.stacks.frames(s); // innermost first
    size_t outermostCall = frames.size();
    for (size_t i = frames.size(); i-- > 0;)
        if (isModuleCall(c, frames[i])) {
            outermostCall = i;
            break;
        }
    if (outermostCall < frames.size())
        for (size_t i = outermostCall + 1; i < frames.size(); ++i)
            if (classifyFrame(c, frames[i]) == FrameKind::User) return static_cast<uint32_t>(i);
    return firstUserFrame(c, s); // no module call, or one called from library code only
}

} // namespace vs
