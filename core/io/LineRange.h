#pragma once
// The line numbers a frame may carry, one rule for every reader (pickle, .vscap, torch.profiler
// trace): 0 (unknown: PyTorch writes it for C++ frames without one) up to 2^31 - 1 (CPython's and
// DWARF's range). Anything else (negative, or past it, whatever the format's integer width) is read
// as 0, unknown, and counted: the capture says how many in one warning.
#include <cstdint>
#include <string>

namespace vs {

constexpr int64_t kMaxLineNumber = INT32_MAX;

inline uint32_t lineOrUnknown(int64_t line, uint64_t& outOfRange) {
    if (line >= 0 && line <= kMaxLineNumber) return static_cast<uint32_t>(line);
    ++outOfRange;
    return 0;
}
inline uint32_t lineOrUnknown(uint64_t line, uint64_t& outOfRange) {
    return lineOrUnknown(line > uint64_t(kMaxLineNumber) ? int64_t(-1) : int64_t(line), outOfRange);
}

inline std::string linesOutOfRangeWarning(uint64_t frames) {
    return std::to_string(frames) + " frame" + (frames == 1 ? " has a line number" : "s have line numbers") +
           " outside 0.." + std::to_string(kMaxLineNumber) + ": read as 0 (unknown)";
}

} // namespace vs
