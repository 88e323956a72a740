#include "StackKey.h"

#include "analysis/FrameFilter.h"
#include "analysis/SiteText.h"
#include "load/AnalysisBudget.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string_view>

namespace vs {

StackKeys::StackKeys(uint64_t budget) : budget_(budget) {}

// Counts what the keys take as they grow; past the budget the comparison stops, saying so.
void StackKeys::charge(uint64_t more) {
    charged_ += more;
    if (charged_ > budget_)
        analysisOverBudget("comparing the call stacks",
                           std::to_string(reps_.size()) + " distinct stacks of " + std::to_string(frameReps_.size()) +
                               " distinct frames",
                           budget_);
}

StackKeys::Cache& StackKeys::cacheOf(const Capture& c) {
    for (Cache& k : caches_)
        if (k.capture == &c) return k;
    charge(c.frames.size() * 13 + c.stacks.size() * 8);
    Cache& k = caches_.emplace_back();
    k.capture = &c;
    k.kind.assign(c.frames.size(), 0);
    k.frame.assign(c.frames.size(), kNone);
    k.siteOfFrame.assign(c.frames.size(), kNone);
    k.stack.assign(c.stacks.size(), kNone);
    k.siteOfStack.assign(c.stacks.size(), kNone);
    return k;
}

int StackKeys::kindOf(Cache& cache, FrameId f) {
    uint8_t& k = cache.kind[f.value];
    if (!k) k = uint8_t(1 + int(classifyFrame(*cache.capture, f)));
    return k - 1;
}

// A frame is its name, file and line as text: hashed and compared without building a string.
uint32_t StackKeys::frameKey(Cache& cache, FrameId f) {
    uint32_t& k = cache.frame[f.value];
    if (k != kNone) return k;
    if (kindOf(cache, f) == int(FrameKind::Internal)) return k = kHidden;
    const Capture& c = *cache.capture;
    const Frame& fr = c.frames[f];
    const std::string_view name = c.strings.text(fr.name), file = c.strings.text(fr.filename);
    const std::hash<std::string_view> hash;
    const uint64_t h = (hash(name) * 0x9E3779B97F4A7C15ull ^ hash(file)) * 0xff51afd7ed558ccdull ^ fr.line;
    k = frameIndex_.find(h, [&](uint32_t id) {
        const Rep& r = frameReps_[id];
        const Capture& o = *caches_[r.cache].capture;
        const Frame& of = o.frames[FrameId{r.id}];
        return of.line == fr.line && o.strings.text(of.name) == name && o.strings.text(of.filename) == file;
    });
    if (k != kNone) return k;
    charge(sizeof(Rep) + 16);
    frameReps_.push_back({uint32_t(&cache - caches_.data()), f.value});
    return k = frameIndex_.add(h);
}

// The two stacks' shown frames, in order, have the same keys.
bool StackKeys::sameFrames(Cache& a, StackId sa, Cache& b, StackId sb) {
    const auto fa = a.capture->stacks.frames(sa), fb = b.capture->stacks.frames(sb);
    size_t i = 0, j = 0;
    for (;;) {
        uint32_t ka = kHidden, kb = kHidden;
        while (i < fa.size() && (ka = frameKey(a, fa[i])) == kHidden) ++i;
        while (j < fb.size() && (kb = frameKey(b, fb[j])) == kHidden) ++j;
        if (i == fa.size() || j == fb.size()) return i == fa.size() && j == fb.size();
        if (ka != kb) return false;
        ++i, ++j;
    }
}

uint32_t StackKeys::key(const Capture& c, StackId s) {
    Cache& cache = cacheOf(c);
    if (s.value >= cache.stack.size()) return kNone;
    uint32_t& k = cache.stack[s.value];
    if (k != kNone) return k;
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the shown frames' keys
    for (FrameId f : c.stacks.frames(s))
        if (const uint32_t fk = frameKey(cache, f); fk != kHidden) h = (h ^ fk) * 0x100000001b3ull;
    k = stackIndex_.find(h, [&](uint32_t id) {
        return sameFrames(caches_[reps_[id].cache], StackId{reps_[id].id}, cache, s);
    });
    if (k != kNone) return k;
    charge(sizeof(Rep) + 16);
    reps_.push_back({uint32_t(&cache - caches_.data()), s.value});
    return k = stackIndex_.add(h);
}

// firstUserFrame with the kinds classified once: the innermost user frame, else library Python;
// stacks with neither (C++ only) take firstUserFrame's own rule.
uint32_t StackKeys::siteFrame(Cache& cache, StackId s) {
    const auto frames = cache.capture->stacks.frames(s);
    for (FrameKind want : {FrameKind::User, FrameKind::Python})
        for (size_t i = 0; i < frames.size(); ++i)
            if (kindOf(cache, frames[i]) == int(want)) return uint32_t(i);
    return firstUserFrame(*cache.capture, s);
}

uint32_t StackKeys::site(const std::string& text) {
    const uint64_t h = std::hash<std::string_view>{}(text);
    const uint32_t found = siteIndex_.find(h, [&](uint32_t id) { return siteTexts_[id] == text; });
    if (found != kNone) return found;
    charge(text.size() + 48);
    siteTexts_.push_back(text);
    return siteIndex_.add(h);
}

uint32_t StackKeys::site(const Capture& c, StackId s) {
    Cache& cache = cacheOf(c);
    if (s.value >= cache.siteOfStack.size()) return site(vs::siteText(c, s));
    uint32_t& k = cache.siteOfStack[s.value];
    if (k != kNone) return k;
    const uint32_t at = siteFrame(cache, s);
    if (at == kNoFrame) return k = site(vs::siteText(c, s)); // the words for a stack without frames
    const FrameId f = c.stacks.frames(s)[at];
    uint32_t& byFrame = cache.siteOfFrame[f.value];
    if (byFrame != kNone) return k = byFrame;
    // A frame's site text follows from its name, file and line: a frame of the other capture with the
    // same key has it already.
    const uint32_t fk = frameKey(cache, f);
    if (fk == kHidden) return k = byFrame = site(frameText(c, f));
    if (fk >= siteOfFrameKey_.size()) siteOfFrameKey_.resize(std::max<size_t>(fk + 1, siteOfFrameKey_.size() * 2), kNone);
    if (siteOfFrameKey_[fk] == kNone) siteOfFrameKey_[fk] = site(frameText(c, f));
    return k = byFrame = siteOfFrameKey_[fk];
}

std::vector<uint32_t> StackKeys::siteRanks() const {
    std::vector<uint32_t> order(siteTexts_.size()), rank(siteTexts_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return siteTexts_[a] < siteTexts_[b]; });
    for (uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    return rank;
}

} // namespace vs
