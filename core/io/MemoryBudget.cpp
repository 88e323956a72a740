#include "MemoryBudget.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

namespace vs {
namespace {
std::atomic<uint64_t> g_processDefault{0}; // 0: the machine's default
}

uint64_t MemoryBudget::machineDefault() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 8ull << 30;
    const uint64_t half = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / 2;
    return half > (1ull << 30) ? half >> 30 << 30 : half; // whole GiB read better in the message
}

uint64_t MemoryBudget::processDefault() {
    const uint64_t set = g_processDefault.load(std::memory_order_relaxed);
    return set ? set : machineDefault();
}

void MemoryBudget::setProcessDefault(uint64_t bytes) {
    g_processDefault.store(bytes, std::memory_order_relaxed);
}

std::optional<uint64_t> MemoryBudget::parse(std::string_view text) {
    const std::string s(text);
    char* end = nullptr;
    const double n = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || !std::isfinite(n) || n <= 0) return std::nullopt;
    std::string unit(end);
    for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double scale = 0;
    if (unit.empty() || unit == "b")
        scale = 1;
    else if (unit == "k" || unit == "kib" || unit == "kb")
        scale = 1ull << 10;
    else if (unit == "m" || unit == "mib" || unit == "mb")
        scale = 1ull << 20;
    else if (unit == "g" || unit == "gib" || unit == "gb")
        scale = 1ull << 30;
    else if (unit == "t" || unit == "tib" || unit == "tb")
        scale = 1ull << 40;
    else
        return std::nullopt;
    const double bytes = n * scale;
    if (bytes < 1 || bytes > 9.2e18) return std::nullopt;
    return static_cast<uint64_t>(bytes);
}

std::string MemoryBudget::describe(uint64_t bytes) {
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, bytes % (1ull << 30) ? "%.1f GiB" : "%.0f GiB",
                      double(bytes) / (1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, bytes % (1ull << 20) ? "%.1f MiB" : "%.0f MiB",
                      double(bytes) / (1ull << 20));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    return buf;
}

std::string MemoryBudget::exceededMessage(uint64_t budget) {
    return "this file would need more than " + describe(budget) +
           " of memory; raise --max-memory if you trust it";
}

} // namespace vs
