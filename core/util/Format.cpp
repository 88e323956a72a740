#include "Format.h"

#include <cstdio>

namespace vs {

std::string hexAddress(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string humanBytes(int64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes < 0 ? -bytes : bytes);
    int u = 0;
    while (v >= 1024.0 && u < 5) v /= 1024.0, ++u;
    char buf[32];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%s%lld B", bytes < 0 ? "-" : "", static_cast<long long>(v));
    else
        std::snprintf(buf, sizeof buf, "%s%.2f %s", bytes < 0 ? "-" : "", v, units[u]);
    return buf;
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
