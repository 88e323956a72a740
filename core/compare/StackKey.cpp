#include "StackKey.h"

#include "analysis/stacks/FrameFilter.h"
#include "analysis/stacks/SiteText.h"
#include "load/AnalysisBudget.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace vs {

StackKeys::StackKeys(uint64_t budget) : budget_(budget) {}

// Counts what the keys take as they grow; past the budget the comparison stops, saying so.
void StackKeys::charge(uint64_t more) {
    charged_ += more;
    if (charged_ > budget_)
        analysisOverBudget("comparing the call stacks",
                           std::to_string(reps_.size()) + " distinct stacks of " +
                               std::to_string(frameTexts_.size()) + " distinct frames",
                           budget_);
}

StackKeys::Cache& StackKeys::cacheOf(const Capture& c) {
    for (Cache& k : caches_)
        if (k.capture == &c) return k;
    charge(c.frames.size() * 13 + c.stacks.size() * 8 + c.strings.size() * 5);
    Cache& k = caches_.emplace_back();
    k.capture = &c;
    k.kind.assign(c.frames.size(), 0);
    k.frame.assign(c.frames.size(), kNone);
    k.string.assign(c.strings.size(), kNone);
    k.fileKind.assign(c.strings.size(), 0);
    k.siteOfFrame.assign(c.frames.size(), kNone);
    k.stack.assign(c.stacks.size(), kNone);
    k.siteOfStack.assign(c.stacks.size(), kNone);
    return k;
}

// A Python frame's file is classified once for all the frames in it (the name's part is cheap).
int StackKeys::kindOf(Cache& cache, FrameId f) {
    uint8_t& k = cache.kind[f.value];
    if (k) return k - 1;
    const Capture& c = *cache.capture;
    if (c.nativeStacks) return (k = uint8_t(1 + int(classifyFrame(c, f)))) - 1;
    const Frame& fr = c.frames[f];
    uint8_t& file = cache.fileKind[fr.filename.value];
    if (!file) file = uint8_t(1 + int(classifyFile(c.strings.text(fr.filename))));
    k = isInternalName(c.strings.text(fr.name)) ? uint8_t(1 + int(FrameKind::Internal)) : file;
    return k - 1;
}

// A string of a capture, keyed by its text: each of a capture's strings is hashed once, whatever
// the number of frames that name it (a million frames of one file hash the file's path once).
uint32_t StackKeys::stringKey(Cache& cache, StringId id) {
    uint32_t& k = cache.string[id.value];
    if (k != kNone) return k;
    const std::string_view text = cache.capture->strings.text(id);
    const uint64_t h = std::hash<std::string_view>{}(text);
    k = stringIndex_.find(h, [&](uint32_t other) {
        const Rep& r = stringReps_[other];
        return caches_[r.cache].capture->strings.text(StringId{r.id}) == text;
    });
    if (k != kNone) return k;
    charge(sizeof(Rep) + 16);
    stringReps_.push_back({uint32_t(&cache - caches_.data()), id.value});
    return k = stringIndex_.add(h);
}

// A frame is its name, file and line: the keys of its strings and the line, hashed and compared as ids.
uint32_t StackKeys::frameKey(Cache& cache, FrameId f) {
    uint32_t& k = cache.frame[f.value];
    if (k != kNone) return k;
    if (kindOf(cache, f) == int(FrameKind::Internal)) return k = kHidden;
    const Frame& fr = cache.capture->frames[f];
    const FrameText t{stringKey(cache, fr.name), stringKey(cache, fr.filename), fr.line};
    const uint64_t h =
        ((uint64_t(t.name) << 32 | t.file) * 0x9E3779B97F4A7C15ull ^ t.line) * 0xff51afd7ed558ccdull;
    k = frameIndex_.find(h, [&](uint32_t id) { return frameTexts_[id] == t; });
    if (k != kNone) return k;
    charge(sizeof(FrameText) + 16);
    frameTexts_.push_back(t);
    return k = frameIndex_.add(h);
}

// The shown frames of stack `s` (a key's first stack: its frames have their keys) have the keys `shown`.
bool StackKeys::sameFrames(const Rep& s, const std::vector<uint32_t>& shown) const {
    const Cache& cache = caches_[s.cache];
    size_t j = 0;
    for (FrameId f : cache.capture->stacks.frames(StackId{s.id}))
        if (const uint32_t fk = cache.frame[f.value]; fk != kHidden)
            if (j == shown.size() || shown[j++] != fk) return false;
    return j == shown.size();
}

uint32_t StackKeys::key(const Capture& c, StackId s) {
    Cache& cache = cacheOf(c);
    if (s.value >= cache.stack.size()) return kNone;
    uint32_t& k = cache.stack[s.value];
    if (k != kNone) return k;
    shown_.clear();
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the shown frames' keys
    for (FrameId f : c.stacks.frames(s)) {
        uint32_t fk = cache.frame[f.value];
        if (fk == kNone) fk = frameKey(cache, f);
        if (fk != kHidden) shown_.push_back(fk), h = (h ^ fk) * 0x100000001b3ull;
    }
    k = stackIndex_.find(h, [&](uint32_t id) { return sameFrames(reps_[id], shown_); });
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
    const uint32_t found = siteIndex_.find(h, [&](uint32_t id) { return (*siteTexts_)[id] == text; });
    if (found != kNone) return found;
    charge(text.size() + 48);
    siteTexts_->push_back(text);
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
    if (fk >= siteOfFrameKey_.size())
        siteOfFrameKey_.resize(std::max<size_t>(fk + 1, siteOfFrameKey_.size() * 2), kNone);
    if (siteOfFrameKey_[fk] == kNone) siteOfFrameKey_[fk] = site(frameText(c, f));
    return k = byFrame = siteOfFrameKey_[fk];
}

// The sort compares each text's first 8 bytes as one number (held beside its key, in order) and reads
// the texts only where those are equal: a million sites sort without a cache miss per comparison.
std::vector<uint32_t> StackKeys::siteRanks() const {
    struct Entry {
        uint64_t prefix; // the text's first 8 bytes, big-endian (zero-padded): orders as the text does
        uint32_t site;
    };
    std::vector<Entry> order(siteTexts_->size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        const std::string& t = (*siteTexts_)[i];
        uint64_t p = 0;
        for (size_t k = 0; k < 8; ++k) p = p << 8 | (k < t.size() ? uint8_t(t[k]) : 0);
        order[i] = {p, i};
    }
    std::sort(order.begin(), order.end(), [&](const Entry& a, const Entry& b) {
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        return (*siteTexts_)[a.site] < (*siteTexts_)[b.site];
    });
    std::vector<uint32_t> rank(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) rank[order[i].site] = i;
    return rank;
}

} // namespace vs
