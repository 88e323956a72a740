#pragma once
// Dense ids (0, 1, 2... in the order added) found by a 64-bit hash of what they stand for, in one
// flat open-addressing array: a million ids are a few MB, looked up in one or two probes, where a
// node-based map takes a node (and a cache miss) each. The caller says what equal means.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vs {

class HashIndex {
  public:
    static constexpr uint32_t kNone = UINT32_MAX;
    size_t size() const { return hashes_.size(); }
    uint64_t bytes() const {
        return slots_.size() * sizeof(uint32_t) + hashes_.capacity() * sizeof(uint64_t);
    }

    // The id whose hash is `h` and for which `same(id)` holds, or kNone.
    template <class Same> uint32_t find(uint64_t h, Same same) const {
        if (slots_.empty()) return kNone;
        for (size_t i = slotOf(h); slots_[i] != kNone; i = (i + 1) & (slots_.size() - 1))
            if (hashes_[slots_[i]] == h && same(slots_[i])) return slots_[i];
        return kNone;
    }
    // A new id for hash `h` (after find() said there is none).
    uint32_t add(uint64_t h) {
        if ((hashes_.size() + 1) * 2 > slots_.size()) grow();
        const auto id = uint32_t(hashes_.size());
        hashes_.push_back(h);
        place(id);
        return id;
    }

  private:
    size_t slotOf(uint64_t h) const {
        return size_t((h * 0x9E3779B97F4A7C15ull) >> 20) & (slots_.size() - 1);
    }
    void place(uint32_t id) {
        size_t i = slotOf(hashes_[id]);
        while (slots_[i] != kNone) i = (i + 1) & (slots_.size() - 1);
        slots_[i] = id;
    }
    void grow() {
        slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, kNone);
        for (uint32_t id = 0; id < hashes_.size(); ++id) place(id);
    }
    std::vector<uint32_t> slots_;
    std::vector<uint64_t> hashes_; // by id
};

} // namespace vs
