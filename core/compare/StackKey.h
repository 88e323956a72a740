#pragma once
// Names call stacks and allocation sites across captures by id, so that the same code path gets the
// same key in two captures (their frame and stack ids differ). A stack key stands for the sequence of
// a stack's Python and user frames (internal frames - PyTorch, CPython, the C++ runtime, whose
// addresses vary between runs - left out), each frame interned once by its text (name, file, line):
// each string hashed once, frames keyed by their strings' keys;
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
#include <memory>
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
    const std::string& siteText(uint32_t site) const { return (*siteTexts_)[site]; }
    // The site texts, for what outlives the keys (a comparison's rows name them).
    std::shared_ptr<const std::deque<std::string>> siteTexts() const { return siteTexts_; }
    // Site keys ranked by their text (rank[site] < rank[other] when its text sorts first).
    std::vector<uint32_t> siteRanks() const;
    size_t sites() const { return siteTexts_->size(); }
    uint64_t bytes() const { return charged_; } // what the keys and caches take

  private:
    struct Cache {
        const Capture* capture = nullptr;
        std::vector<uint8_t> kind;     // capture frame -> 1 + FrameKind; 0: not yet classified
        std::vector<uint8_t> fileKind; // capture string -> 1 + classifyFile of it; 0: not yet
        std::vector<uint32_t> string;  // capture string -> string key; kNone: not yet
        std::vector<uint32_t> frame;   // capture frame -> frame key; kHidden: internal; kNone: not yet
        std::vector<uint32_t> stack;   // capture stack -> key
        std::vector<uint32_t> siteOfFrame, siteOfStack;
    };
    struct Rep { // the stack (or string) a key was first seen as
        uint32_t cache;
        uint32_t id;
    };
    struct FrameText { // a frame key: the keys of its name and file, and its line
        uint32_t name, file, line;
        bool operator==(const FrameText&) const = default;
    };
    static constexpr uint32_t kHidden = UINT32_MAX - 1;
    Cache& cacheOf(const Capture& c);
    int kindOf(Cache& cache, FrameId f);
    uint32_t stringKey(Cache& cache, StringId id);
    uint32_t frameKey(Cache& cache, FrameId f);
    uint32_t siteFrame(Cache& cache, StackId s);
    bool sameFrames(const Rep& s, const std::vector<uint32_t>& shown) const;
    void charge(uint64_t more);

    uint64_t budget_;
    std::vector<Cache> caches_;         // one per capture seen (two in a comparison)
    HashIndex stringIndex_;             // string key by hash of its text
    std::vector<Rep> stringReps_;       // string key -> its first string
    HashIndex frameIndex_;              // frame key by hash of its FrameText
    std::vector<FrameText> frameTexts_; // frame key -> its strings' keys and line
    HashIndex stackIndex_;              // stack key by hash of its frames' keys
    std::vector<Rep> reps_;             // stack key -> its first stack
    HashIndex siteIndex_;               // site key by hash of its text
    std::shared_ptr<std::deque<std::string>> siteTexts_ =
        std::make_shared<std::deque<std::string>>(); // site key -> its
                                                     // text (a deque: references stay valid)
    std::vector<uint32_t> siteOfFrameKey_;           // frame key -> site key (its text decides it)
    std::vector<uint32_t> shown_; // scratch: the shown frames' keys of the stack being keyed
    uint64_t charged_ = 0;
};

} // namespace vs
