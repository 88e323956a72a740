#include "Format.h"

#include <cstdio>

namespace vs {

std::string hexAddress(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

namespace {
// The magnitude and its sign apart: INT64_MIN's magnitude and sizes past 2^63 print right.
std::string scaled(uint64_t magnitude, bool negative) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(magnitude);
    int u = 0;
    while (v >= 1024.0 && u < 6) v /= 1024.0, ++u;
    char buf[40];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%s%llu B", negative ? "-" : "",
                      static_cast<unsigned long long>(magnitude));
    else
        std::snprintf(buf, sizeof buf, "%s%.2f %s", negative ? "-" : "", v, units[u]);
    return buf;
}
} // namespace

std::string humanBytes(int64_t bytes) {
    return scaled(bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : static_cast<uint64_t>(bytes), bytes < 0);
}

std::string humanSize(uint64_t bytes) {
    if (bytes < 1024) return scaled(bytes, false);
    return scaled(bytes, false) + " (" + std::to_string(bytes) + " B)";
}

std::string humanBytesPrecise(int64_t bytes) {
    if (bytes > -1024 && bytes < 1024) return humanBytes(bytes);
    return humanBytes(bytes) + " (" + std::to_string(bytes) + " B)";
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace vs
