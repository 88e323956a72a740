#pragma once
// Reads the fuzzer's bytes as a stream of choices for the structure-aware generators: small counts,
// picks from a list, and integers that are either ordinary or one of the values that break readers
// (signs, 2^31, 2^63, all ones, one past a limit). Past the end every read is 0, so any input is a
// complete recipe.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vs::fuzz {

class FuzzBytes {
  public:
    FuzzBytes(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

    uint8_t byte() { return p_ < end_ ? *p_++ : 0; }
    bool flag() { return byte() & 1; }
    size_t below(size_t n) { return n ? byte() % n : 0; }
    uint64_t u64() {
        uint64_t v = 0;
        const size_t n = static_cast<size_t>(end_ - p_) < 8 ? static_cast<size_t>(end_ - p_) : 8;
        std::memcpy(&v, p_, n);
        p_ += n;
        return v;
    }
    // One in four: a hostile value; otherwise a small one near `typical`.
    int64_t integer(int64_t typical) {
        static constexpr int64_t kHostile[] = {0,
                                               -1,
                                               1,
                                               INT32_MAX,
                                               int64_t(1) << 31,
                                               int64_t(UINT32_MAX),
                                               int64_t(1) << 32,
                                               int64_t(1) << 50,
                                               (int64_t(1) << 50) + 1,
                                               int64_t(7258118400ll * 1000000 + 1),
                                               INT64_MAX,
                                               INT64_MIN,
                                               -(int64_t(1) << 40),
                                               511,
                                               512,
                                               513,
                                               1 << 20,
                                               (1 << 20) + 1,
                                               1023,
                                               1024,
                                               1025};
        const uint8_t b = byte();
        if ((b & 3) == 0) return kHostile[(b >> 2) % (sizeof kHostile / sizeof kHostile[0])];
        return static_cast<int64_t>(static_cast<uint64_t>(typical) + (b >> 2) * 512u); // wraps, never UB
    }

  private:
    const uint8_t* p_;
    const uint8_t* end_;
};

} // namespace vs::fuzz
