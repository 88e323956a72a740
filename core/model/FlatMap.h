#pragma once
// An open-addressing hash map from uint64_t keys to uint32_t values, for the hot paths (stack
// interning, block lookup by address) where std::unordered_map's node allocations dominate.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vs {

class FlatMap {
  public:
    static constexpr uint32_t kMissing = UINT32_MAX;

    explicit FlatMap(size_t capacity = 16) { rehash(capacity < 16 ? 16 : capacity); }

    uint32_t find(uint64_t key) const {
        for (size_t i = slot(key);; i = (i + 1) & mask_) {
            if (slots_[i].value == kMissing) return kMissing;
            if (slots_[i].key == key) return slots_[i].value;
        }
    }
    // Inserts or overwrites. `value` must not be kMissing.
    void set(uint64_t key, uint32_t value) {
        if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
        size_t i = slot(key);
        while (slots_[i].value != kMissing && slots_[i].key != key) i = (i + 1) & mask_;
        if (slots_[i].value == kMissing) ++size_;
        slots_[i] = {key, value};
    }
    void erase(uint64_t key) {
        size_t i = slot(key);
        while (slots_[i].value != kMissing && slots_[i].key != key) i = (i + 1) & mask_;
        if (slots_[i].value == kMissing) return;
        // backward-shift deletion keeps probe chains intact without tombstones
        for (size_t j = i;;) {
            slots_[i].value = kMissing;
            for (;;) {
                j = (j + 1) & mask_;
                if (slots_[j].value == kMissing) {
                    --size_;
                    return;
                }
                const size_t home = slot(slots_[j].key);
                if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) break;
            }
            slots_[i] = slots_[j];
            i = j;
        }
    }
    size_t size() const { return size_; }
    void clear() {
        for (auto& s : slots_) s.value = kMissing;
        size_ = 0;
    }

  private:
    struct Slot {
        uint64_t key;
        uint32_t value;
    };
    size_t slot(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_); }
    void rehash(size_t n) {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(n, Slot{0, kMissing});
        mask_ = n - 1;
        shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(n));
        size_ = 0;
        for (const auto& s : old)
            if (s.value != kMissing) set(s.key, s.value);
    }
    std::vector<Slot> slots_;
    size_t mask_ = 0, size_ = 0;
    unsigned shift_ = 0;
};

} // namespace vs
