#include "analysis/stacks/CallTree.h"

#include "analysis/stacks/FrameFilter.h"

#include <algorithm>

namespace vs {

CallTree CallTree::build(const Capture& c, const std::vector<SurvivorGroup>& groups, Direction d,
                         bool hideInternal, bool hideLibraries) {
    CallTree t;
    t.nodes_.push_back({});
    std::vector<FrameId> path;
    for (const SurvivorGroup& g : groups) {
        path = shownFrames(c, g.stack, hideInternal, hideLibraries); // innermost first
        if (d == Direction::TopDown) std::reverse(path.begin(), path.end());
        uint32_t at = 0;
        t.nodes_[0].bytes += g.bytes, t.nodes_[0].count += g.count;
        for (FrameId f : path) {
            uint32_t next = UINT32_MAX;
            for (uint32_t ch : t.nodes_[at].children)
                if (t.nodes_[ch].frame == f) next = ch;
            if (next == UINT32_MAX) {
                next = static_cast<uint32_t>(t.nodes_.size());
                t.nodes_.push_back({f, at, 0, 0, {}});
                t.nodes_[at].children.push_back(next);
            }
            at = next;
            t.nodes_[at].bytes += g.bytes, t.nodes_[at].count += g.count;
        }
    }
    for (auto& n : t.nodes_)
        std::sort(n.children.begin(), n.children.end(),
                  [&](uint32_t a, uint32_t b) { return t.nodes_[a].bytes > t.nodes_[b].bytes; });
    return t;
}

uint32_t CallTree::depth(uint32_t i) const {
    uint32_t d = 0;
    while (nodes_[i].parent != UINT32_MAX) i = nodes_[i].parent, ++d;
    return d;
}

} // namespace vs
