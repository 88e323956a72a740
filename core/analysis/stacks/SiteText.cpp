#include "analysis/stacks/SiteText.h"

#include "analysis/stacks/FrameFilter.h"

namespace vs {

// Built in one allocation: a comparison names a million sites.
std::string frameText(const Capture& c, FrameId id) {
    const Frame& f = c.frames[id];
    std::string_view file = c.strings.text(f.filename);
    if (auto slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
    const std::string_view name = withoutParameters(c.strings.text(f.name));
    std::string out;
    out.reserve(name.size() + file.size() + 14);
    out.append(name).append(" (").append(file);
    if (f.line > 0) out.append(":").append(std::to_string(f.line)); // native frames without DWARF have none
    return out.append(")");
}

std::string siteText(const Capture& c, StackId s) {
    const uint32_t at = firstUserFrame(c, s);
    // Typically a thread without Python frames (autograd's backward) under stacks="python".
    if (at == kNoFrame)
        return "an allocation without a recorded stack (made on a thread with no Python frames, such as "
               "autograd's backward; record with stacks=\"all\" for its C++ frames)";
    return frameText(c, c.stacks.frames(s)[at]);
}

} // namespace vs
