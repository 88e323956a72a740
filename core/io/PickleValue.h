#pragma once
// One value on the unpickler's stack or memo, in 8 bytes: a 4-bit tag and a 60-bit payload.
// Strings are (offset, length) views into the input; containers are indices into the machine's
// container table, so memo references share the object instead of copying it. A dict that became a
// trace entry is usually named directly by its event index (Event), its container slot reused.
#include <cstdint>

namespace vs::pickle {

enum class Tag : uint8_t { None, Bool, Int, BigInt, Float, Str, LongStr, Container, Event };

struct Value {
    uint64_t bits = 0;

    Tag tag() const { return static_cast<Tag>(bits & 0xf); }
    uint64_t payload() const { return bits >> 4; }
    int64_t smallInt() const { return static_cast<int64_t>(bits) >> 4; } // arithmetic shift keeps the sign

    static Value make(Tag t, uint64_t payload) { return Value{(payload << 4) | static_cast<uint64_t>(t)}; }
    static bool fitsSmall(int64_t v) { return v >= -(int64_t{1} << 59) && v < (int64_t{1} << 59); }
    static Value smallIntValue(int64_t v) {
        return Value{(static_cast<uint64_t>(v) << 4) | uint64_t(Tag::Int)};
    }

    // Str packs a 40-bit offset and a 20-bit length; longer or farther strings go to a side table.
    static constexpr uint64_t kStrLenBits = 20;
    static bool fitsStr(uint64_t offset, uint64_t len) {
        return offset < (1ull << 40) && len < (1ull << kStrLenBits);
    }
    static Value str(uint64_t offset, uint64_t len) { return make(Tag::Str, (offset << kStrLenBits) | len); }
    uint64_t strOffset() const { return payload() >> kStrLenBits; }
    uint64_t strLength() const { return payload() & ((1ull << kStrLenBits) - 1); }
};

} // namespace vs::pickle
