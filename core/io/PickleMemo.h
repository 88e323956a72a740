#pragma once
// The unpickler's memo, holding only the slots that are ever read back.
//
// A pickler memoizes every container and string it writes, but a PyTorch snapshot reads back few of
// them: the dict keys, the shared frames, the frames list an alloc shares with its frees. Keeping
// every slot took 8 bytes per memoized object, ~21 bytes per trace entry (2.7 objects each), more
// than the loaded columns themselves. One pass over the opcodes before the real one (Scan, ~1/6 of
// the parse's time) marks which slots a GET ever names; the real pass then stores those only, in
// a dense array indexed by rank. A store to a slot never read is counted (for MEMOIZE's numbering
// and the range check) and dropped.
#include "LoadMeter.h"
#include "PickleValue.h"

#include <cstdint>
#include <span>
#include <vector>

namespace vs::pickle {

class PickleMemo {
  public:
    // A memo store may name a slot at most this far past the highest one so far (a hostile file
    // would otherwise make us count slots for nothing).
    static constexpr uint64_t kSlack = 1 << 20;
    static constexpr uint64_t kUnset = (1 << 4) | uint64_t(Tag::None); // a slot not stored yet
    static constexpr double kScanShare = 0.15; // of a parse's time, for progress reports

    class Scan;

    uint64_t size() const { return size_; } // the highest slot stored so far + 1: MEMOIZE's next index
    uint64_t referenced() const { return values_.size(); }

    // The dense slot of memo index i, or nullptr when no GET ever names it.
    Value* slot(uint64_t i) {
        const uint64_t w = i >> 6;
        if (w >= marks_.size()) return nullptr;
        const uint64_t bit = uint64_t{1} << (i & 63);
        if (!(marks_[w] & bit)) return nullptr;
        return &values_[before_[w] + ones(marks_[w] & (bit - 1))];
    }
    // MEMOIZE: stores v in the next slot.
    void push(Value v) {
        if (Value* s = slot(size_)) *s = v;
        ++size_;
    }
    // BINPUT/LONG_BINPUT: false when i lies too far past the slots so far.
    bool put(uint64_t i, Value v) {
        if (i >= size_) {
            if (i > size_ + kSlack) return false;
            size_ = i + 1;
        }
        if (Value* s = slot(i)) *s = v;
        return true;
    }
    // GET: false when slot i was never stored.
    bool get(uint64_t i, Value& out) {
        const Value* s = i < size_ ? slot(i) : nullptr;
        if (!s || s->bits == kUnset) return false;
        out = *s;
        return true;
    }

    // The bits set in x. Not __builtin_popcountll: without -mpopcnt (the portable x86-64 baseline)
    // that is a call into libgcc, 5% of a parse.
    static uint64_t ones(uint64_t x) {
        x -= (x >> 1) & 0x5555555555555555ULL;
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
        return (x * 0x0101010101010101ULL) >> 56;
    }

  private:
    friend class Scan;
    std::vector<uint64_t> marks_;  // bit i: a GET names slot i
    std::vector<uint64_t> before_; // marks in the words before each word: the rank directory
    std::vector<Value> values_;    // one per marked slot, in slot order
    uint64_t size_ = 0;
};

// The pass that marks the slots a GET names, over the input in consecutive windows, up to where the
// opcodes end or stop making sense (the real pass reports the error there). The marks are charged to
// the meter.
class PickleMemo::Scan {
  public:
    Scan(LoadMeter& meter, uint64_t inputBytes) : meter_(meter), total_(inputBytes) {}
    // Reads the window at `offset` (where the last feed said to go on); returns how far to move on:
    // past the last whole opcode in the window and any string bytes beyond it; 0 once finished.
    uint64_t feed(std::span<const uint8_t> window, uint64_t offset);
    PickleMemo finish(); // the memo, its slots for the marked indices made

  private:
    void mark(uint64_t i, uint64_t offset);

    PickleMemo memo_;
    LoadMeter& meter_;
    uint64_t total_;
    uint64_t size_ = 0; // memo slots so far, as the real pass counts them
    bool finished_ = false;
};

} // namespace vs::pickle
