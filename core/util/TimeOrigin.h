#pragma once
// The one conversion between a capture's clock (microseconds, as recorded) and the seconds since its
// origin (the whole capture's first event): the x of every view drawn on the timeline's clock and
// every time the GUI prints. Both ways, so that a moment read off an axis maps back to its events.
#include <cmath>
#include <cstdint>

namespace vs {

constexpr double secondsSince(int64_t originUs, int64_t timeUs) {
    return double(timeUs - originUs) / 1e6;
}

// The microsecond holding `seconds` since the origin (rounded down: a moment inside a microsecond
// is in it).
inline int64_t microsecondsAt(int64_t originUs, double seconds) {
    return originUs + int64_t(std::floor(seconds * 1e6));
}

} // namespace vs
