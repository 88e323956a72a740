#include "DiffTree.h"

#include <algorithm>
#include <cstdlib>

namespace vs {

DiffTree DiffTree::build(const std::vector<DiffRow>& stacks, bool live) {
    DiffTree t;
    t.nodes_[0].frame = "all";
    for (const DiffRow& r : stacks) {
        const int64_t a = live ? r.liveA : r.peakA, b = live ? r.liveB : r.peakB;
        const auto w = uint64_t(std::llabs(b - a));
        uint32_t at = 0;
        auto addTo = [&](uint32_t n) { t.nodes_[n].a += a, t.nodes_[n].b += b, t.nodes_[n].weight += w; };
        addTo(0);
        const std::vector<std::string> siteOnly{r.site}; // a row past the ones with frames: its site
        for (const std::string& f : r.frames.empty() ? siteOnly : r.frames) {
            auto& kids = t.nodes_[at].children;
            auto it = std::find_if(kids.begin(), kids.end(), [&](uint32_t k) { return t.nodes_[k].frame == f; });
            uint32_t next;
            if (it != kids.end()) {
                next = *it;
            } else {
                next = uint32_t(t.nodes_.size());
                t.nodes_[at].children.push_back(next); // before the push_back below moves nodes_
                t.nodes_.emplace_back().frame = f, t.nodes_.back().parent = at;
            }
            addTo(next), at = next;
        }
    }
    for (auto& n : t.nodes_)
        std::sort(n.children.begin(), n.children.end(),
                  [&](uint32_t x, uint32_t y) { return t.nodes_[x].weight > t.nodes_[y].weight; });
    return t;
}

uint32_t DiffTree::depth(uint32_t i) const {
    uint32_t d = 0;
    for (; nodes_[i].parent != UINT32_MAX; i = nodes_[i].parent) ++d;
    return d;
}

} // namespace vs
