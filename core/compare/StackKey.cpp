#include "StackKey.h"

#include "analysis/FrameFilter.h"
#include "analysis/SiteText.h"

namespace vs {

const std::string& StackKeys::key(StackId s) {
    if (s.value >= keys_.size()) {
        static const std::string none;
        return none;
    }
    if (!done_[s.value]) {
        std::string k;
        for (FrameId f : shownFrames(c_, s, true, false)) {
            const Frame& fr = c_.frames[f];
            k.append(c_.strings.text(fr.name)).append("\t").append(c_.strings.text(fr.filename));
            k.append("\t").append(std::to_string(fr.line)).append("\n");
        }
        keys_[s.value] = std::move(k), done_[s.value] = true;
    }
    return keys_[s.value];
}

std::vector<std::string> StackKeys::frames(StackId s) const {
    std::vector<std::string> out;
    if (s.value >= keys_.size()) return out;
    const auto shown = shownFrames(c_, s, true, false);
    for (auto it = shown.rbegin(); it != shown.rend(); ++it) out.push_back(frameText(c_, *it));
    return out;
}

} // namespace vs
