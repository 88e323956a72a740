#pragma once
// Names call stacks and allocation sites across captures by id, so that the same code path gets the
// same key in two captures (their frame and stack ids differ). A stack key stands for the sequence of
// a stack's Python and user frames (internal frames - PyTorch, CPython, the C++ runtime, whose
// addresses vary between runs - left out), each frame interned once by its text (name, file, line);
// a key keeps the first stack it was seen as, and a stack is matched to a key by a hash of its
// frames' keys and a walk of both stacks: no text per stack and no copy of its frames, so deep,
// distinct stacks (10,000 frames, or a million stacks) cost a few ids each. A site key stands for
// the text of a stack's allocation site (analysis/SiteText.h), each text held once. Frames are
// classified once per capture. What the keys take is held to a memory budget (the loads'), and
// passing it is a LoadError naming this step.
#include "HashIndex.h"
#include "model/Capture.h"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace vs {

class StackKeys {
  public:
    static constexpr uint32_t kNone = UINT32_MAX;
    explicit StackKeys(uint64_t budget);
    // The key of stack `s` of `c` (a capture seen before keeps its cache; `c` must outlive this).
    uint32_t key(const Capture& c, StackId s);
    size_t keys() const { return reps_.size(); }
    // The key of stack `s`'s allocation site, and of any other text shown as a site.
    uint32_t site(const Capture& c, StackId s);
    uint32_t site(const std::string& text);
    const std::string& siteText(uint32_t site) const { return siteTexts_[site]; }
    // Site keys ranked by their text (rank[site] < rank[other] when its text sorts first).
    std::vector<uint32_t> siteRanks() const;
    size_t sites() const { return siteTexts_.size(); }
    uint64_t bytes() const { return charged_; } // what the keys and caches take

  private:
    struct Cache {
        const Capture* capture = nullptr;
        std::vector<uint8_t> kind;   // capture frame -> 1 + FrameKind; 0: not yet classified
        std::vector<uint32_t> frame; // capture frame -> frame key; kHidden: internal; kNone: not yet
        std::vector<uint32_t> stack; // capture stack -> key
        std::vector<uint32_t> siteOfFrame, siteOfStack;
    };
    struct Rep { // the stack (or frame) a key was first seen as
        uint32_t cache;
        uint32_t id;
    };
    static constexpr uint32_t kHidden = UINT32_MAX - 1;
    Cache& cacheOf(const Capture& c);
    int kindOf(Cache& cache, FrameId f);
    uint32_t frameKey(Cache& cache, FrameId f);
    uint32_t siteFrame(Cache& cache, StackId s);
    bool sameFrames(Cache& a, StackId sa, Cache& b, StackId sb);
    void charge(uint64_t more);

    uint64_t budget_;
    std::vector<Cache> caches_;            // one per capture seen (two in a comparison)
    HashIndex frameIndex_;                 // frame key by hash of (name, file, line)
    std::vector<Rep> frameReps_;           // frame key -> its first frame
    HashIndex stackIndex_;                 // stack key by hash of its frames' keys
    std::vector<Rep> reps_;                // stack key -> its first stack
    HashIndex siteIndex_;                  // site key by hash of its text
    std::deque<std::string> siteTexts_;    // site key -> its text (a deque: references stay valid)
    std::vector<uint32_t> siteOfFrameKey_; // frame key -> site key (its text decides it)
    uint64_t charged_ = 0;
};

} // namespace vs
