#include "SiteText.h"

#include "FrameFilter.h"

namespace vs {

std::string frameText(const Capture& c, FrameId id) {
    const Frame& f = c.frames[id];
    std::string file(c.strings.text(f.filename));
    if (auto slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    if (f.line > 0) file.append(":").append(std::to_string(f.line)); // native frames without DWARF have none
    return std::string(withoutParameters(c.strings.text(f.name))) + " (" + file + ")";
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
