#pragma once
// The times a capture may hold, one rule for every reader (pickle, torch.profiler trace, .vscap and
// the live stream, which is .vscap records): microseconds since 1970 (0 where a PyTorch version wrote
// no time) up to 2200-01-01. A time outside was not written by a recorder and would wreck every span,
// duration and rate computed from it; a reader refuses it naming where it is.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace vs {

constexpr int64_t kMaxPlausibleTimeUs = 7258118400ll * 1000000;

inline bool plausibleTimeUs(int64_t t) {
    return t >= 0 && t <= kMaxPlausibleTimeUs;
}
inline bool plausibleTimeUs(double t) { // false for NaN and infinities too
    return t >= 0 && t <= double(kMaxPlausibleTimeUs);
}
// A time read as a double (JSON): whole microseconds when it is one, else as written ("-1e+20").
inline std::string timeText(double t) {
    char buf[64];
    std::snprintf(buf, sizeof buf, std::abs(t) < 1e18 && t == std::floor(t) ? "%.0f" : "%g", t);
    return buf;
}
// "-5 is before 1970", "1e+20 is after the year 2200".
inline std::string implausibleTime(double t) {
    return timeText(t) + (t < 0           ? " is before 1970"
                          : std::isnan(t) ? " is not a number"
                                          : " is after the year 2200");
}
inline std::string implausibleTime(int64_t t) {
    return std::to_string(t) + (t < 0 ? " is before 1970" : " is after the year 2200");
}

} // namespace vs
