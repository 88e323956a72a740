#include "DiffTree.h"

#include "HashIndex.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string_view>

namespace vs {

DiffTree DiffTree::build(const std::vector<DiffRow>& stacks, bool live) {
    DiffTree t;
    t.nodes_[0].frame = "all";
    // node - 1 by a hash of (parent, frame): a child is found in one probe however many siblings it
    // has (a comparison's rows past those with frames are a site each under the root: a million)
    HashIndex children;
    for (const DiffRow& r : stacks) {
        const int64_t a = live ? r.liveA : r.peakA, b = live ? r.liveB : r.peakB;
        const auto w = uint64_t(std::llabs(b - a));
        uint32_t at = 0;
        auto addTo = [&](uint32_t n) { t.nodes_[n].a += a, t.nodes_[n].b += b, t.nodes_[n].weight += w; };
        addTo(0);
        const std::vector<std::string> siteOnly{
            std::string(r.site)}; // a row past the ones with frames: its site
        for (const std::string& f : r.frames.empty() ? siteOnly : r.frames) {
            const uint64_t h = std::hash<std::string_view>{}(f)*0x9E3779B97F4A7C15ull ^ at;
            const uint32_t found = children.find(
                h, [&](uint32_t k) { return t.nodes_[k + 1].parent == at && t.nodes_[k + 1].frame == f; });
            uint32_t next;
            if (found != HashIndex::kNone) {
                next = found + 1;
            } else {
                next = uint32_t(t.nodes_.size());
                children.add(h);
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
