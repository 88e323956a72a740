#include "StackKey.h"

#include "analysis/FrameFilter.h"
#include "load/AnalysisBudget.h"

#include <algorithm>

namespace vs {

StackKeys::StackKeys(uint64_t budget) : budget_(budget) {}

uint64_t StackKeys::bytes() const {
    return charged_;
}

// Counts what the keys take as they grow (the vectors' doubling counted at its end size: a bound).
void StackKeys::charge(uint64_t more) {
    charged_ += more;
    if (charged_ > budget_)
        analysisOverBudget("comparing the call stacks", std::to_string(spans_.size()) + " distinct stacks of " +
                                                            std::to_string(arena_.size()) + " frames in all",
                           budget_);
}

uint32_t StackKeys::frameKey(const Capture& c, Cache& cache, FrameId f) {
    uint32_t& k = cache.frame[f.value];
    if (k != kNone) return k;
    if (classifyFrame(c, f) == FrameKind::Internal) return k = kHidden;
    const Frame& fr = c.frames[f];
    std::string text(c.strings.text(fr.name));
    text.append("\t").append(c.strings.text(fr.filename)).append("\t").append(std::to_string(fr.line));
    charge(text.size() + 64); // the string, its node and bucket
    return k = frames_.emplace(std::move(text), uint32_t(frames_.size())).first->second;
}

uint32_t StackKeys::intern(const std::vector<uint32_t>& frames) {
    uint64_t h = 0xcbf29ce484222325ull ^ frames.size(); // FNV-1a over the frame keys
    for (uint32_t f : frames) h = (h ^ f) * 0x100000001b3ull;
    const auto [from, to] = byHash_.equal_range(h);
    for (auto it = from; it != to; ++it) {
        const Span& s = spans_[it->second];
        if (s.length == frames.size() && std::equal(frames.begin(), frames.end(), arena_.begin() + long(s.offset)))
            return it->second;
    }
    charge(frames.size() * sizeof(uint32_t) + sizeof(Span) + 48);
    const auto key = uint32_t(spans_.size());
    spans_.push_back({arena_.size(), uint32_t(frames.size())});
    arena_.insert(arena_.end(), frames.begin(), frames.end());
    byHash_.emplace(h, key);
    return key;
}

uint32_t StackKeys::key(const Capture& c, StackId s) {
    auto [it, fresh] = caches_.try_emplace(&c);
    Cache& cache = it->second;
    if (fresh) {
        charge((c.frames.size() + c.stacks.size()) * sizeof(uint32_t));
        cache.frame.assign(c.frames.size(), kNone);
        cache.stack.assign(c.stacks.size(), kNone);
    }
    if (s.value >= cache.stack.size()) return kNone;
    uint32_t& k = cache.stack[s.value];
    if (k != kNone) return k;
    scratch_.clear();
    for (FrameId f : c.stacks.frames(s))
        if (const uint32_t fk = frameKey(c, cache, f); fk != kHidden) scratch_.push_back(fk);
    return k = intern(scratch_);
}

} // namespace vs
