#include "analysis/categories/LineHolders.h"

#include "analysis/stacks/CallLine.h"
#include "analysis/stacks/SiteText.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace vs {

namespace {

// A line is its frame (frames are interned: one FrameId per name, file and line), or for a stack
// without frames the stack itself, kept apart by the top bit.
uint64_t lineKey(const Capture& c, StackId s, uint32_t frame) {
    return frame == kNoFrame ? (uint64_t(1) << 63) | s.value : c.stacks.frames(s)[frame].value;
}

struct Gathered {
    LineHolder holder;
    std::array<int64_t, kCategoryCount> byCategory{};
    std::unordered_map<uint32_t, int64_t> byStack;
};

} // namespace

std::vector<LineHolder> lineHolders(const Capture& c, const DeviceCategories& cats, uint32_t event) {
    const auto alive = cats.byLifetime.aliveAt(cats.allocations, 0, event, event);
    std::unordered_map<uint32_t, uint32_t> frameOf; // by stack: callLineFrame once per stack
    std::unordered_map<uint64_t, Gathered> lines;
    for (uint32_t i : alive) {
        const Allocation& a = cats.allocations[i];
        auto [at, fresh] = frameOf.try_emplace(a.stack.value, 0);
        if (fresh) at->second = callLineFrame(c, a.stack);
        Gathered& g = lines[lineKey(c, a.stack, at->second)];
        g.holder.frame = at->second;
        g.holder.bytes += int64_t(a.bytes);
        ++g.holder.count;
        g.byCategory[size_t(cats.category[i])] += int64_t(a.bytes);
        g.byStack[a.stack.value] += int64_t(a.bytes);
    }
    std::vector<LineHolder> out;
    out.reserve(lines.size());
    for (auto& [key, g] : lines) {
        const auto top = std::max_element(g.byStack.begin(), g.byStack.end(),
                                          [](const auto& x, const auto& y) { return x.second < y.second; });
        g.holder.stack = StackId{top->first};
        g.holder.frame = callLineFrame(c, g.holder.stack);
        g.holder.category =
            Category(std::max_element(g.byCategory.begin(), g.byCategory.end()) - g.byCategory.begin());
        out.push_back(g.holder);
    }
    std::sort(out.begin(), out.end(), [](const LineHolder& x, const LineHolder& y) {
        return x.bytes != y.bytes ? x.bytes > y.bytes : x.stack.value < y.stack.value;
    });
    return out;
}

std::string lineText(const Capture& c, const LineHolder& h) {
    return h.frame == kNoFrame ? siteText(c, h.stack) : frameText(c, c.stacks.frames(h.stack)[h.frame]);
}

} // namespace vs
