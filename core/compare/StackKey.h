#pragma once
// Names call stacks across captures by id, so that the same code path gets the same key in two
// captures (their frame and stack ids differ): a key is the sequence of its Python and user frames
// (internal frames - PyTorch, CPython, the C++ runtime, whose addresses vary between runs - left
// out), each frame interned once by its text (name, file, line) and each sequence once, as 4 bytes a
// frame. A comparison then works on ids: deep, distinct stacks (10,000 frames each) cost their frame
// ids, not a text key and a string per frame each. What the keys take is held to a memory budget
// (the loads'), and passing it is a LoadError naming this step.
#include "model/Capture.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace vs {

class StackKeys {
  public:
    static constexpr uint32_t kNone = UINT32_MAX;
    explicit StackKeys(uint64_t budget);
    // The key of stack `s` of `c` (a capture this object has seen before keeps its cache).
    uint32_t key(const Capture& c, StackId s);
    size_t keys() const { return spans_.size(); }
    uint64_t bytes() const; // what the keys and caches take

  private:
    struct Span {
        uint64_t offset;
        uint32_t length;
    };
    struct Cache {
        std::vector<uint32_t> frame; // capture frame -> key frame; kHidden: internal; kNone: not yet
        std::vector<uint32_t> stack; // capture stack -> key
    };
    static constexpr uint32_t kHidden = UINT32_MAX - 1;
    uint32_t frameKey(const Capture& c, Cache& cache, FrameId f);
    uint32_t intern(const std::vector<uint32_t>& frames);
    void charge(uint64_t more);

    uint64_t budget_;
    std::unordered_map<const Capture*, Cache> caches_;
    std::unordered_map<std::string, uint32_t> frames_; // "name\tfile\tline" -> key frame
    std::vector<uint32_t> arena_;                       // every key's frames, one after another
    std::vector<Span> spans_;                           // key -> its frames in arena_
    std::unordered_multimap<uint64_t, uint32_t> byHash_;
    std::vector<uint32_t> scratch_;
    uint64_t charged_ = 0;
};

} // namespace vs
