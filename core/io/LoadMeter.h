#pragma once
// Counts the memory one load builds and stops it, before the memory is taken, when it would pass
// either bound: the budget (LoadOptions::maxMemory, `--max-memory`), or kExpansion times the bytes
// it was built from (plus kSlack for small inputs). No PyTorch snapshot comes near the second: its
// events, frames and segments take about as much memory as their bytes in the pickle; only hostile
// input (memo slots far ahead, shared references expanded, huge trace counts) does, and it is then
// refused after work proportional to its own size instead of filling the machine.
#include <cstdint>
#include <string>

namespace vs {

class LoadMeter {
  public:
    static constexpr uint64_t kExpansion = 16;
    static constexpr uint64_t kSlack = 64ull << 20;

    explicit LoadMeter(uint64_t budget) : budget_(budget), limit_(budget) {}
    // Bounds what is built from `inputBytes` of (decompressed) input by the expansion factor.
    void boundByInput(uint64_t inputBytes);
    // Adds `bytes` to what the load holds; throws LoadError (at `offset`) past either bound.
    void charge(uint64_t bytes, uint64_t offset) {
        used_ += bytes;
        if (used_ > limit_) [[unlikely]]
            exceeded(offset);
    }
    void release(uint64_t bytes) { used_ -= bytes < used_ ? bytes : used_; }
    uint64_t used() const { return used_; }
    uint64_t budget() const { return budget_; }

  private:
    [[noreturn]] void exceeded(uint64_t offset) const;
    uint64_t budget_, limit_;
    uint64_t inputBytes_ = 0;
    uint64_t used_ = 0;
};

} // namespace vs
