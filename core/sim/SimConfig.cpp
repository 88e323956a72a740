#include "SimConfig.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace vs {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> splitTopLevel(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

[[noreturn]] void bad(const std::string& key, const std::string& value, const char* want) {
    throw std::invalid_argument("bad value '" + value + "' for " + key + " (" + want + ")");
}

uint64_t parseUnsigned(const std::string& key, const std::string& v) {
    uint64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size()) bad(key, v, "a whole number");
    return n;
}

double parseFraction(const std::string& key, const std::string& v, bool openAtOne) {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(d > 0) || d > 1 || (openAtOne && d >= 1)) bad(key, v, "a number in (0, 1)");
    return d;
}

bool parseBool(const std::string& key, const std::string& v) {
    if (v == "True" || v == "true" || v == "1") return true;
    if (v == "False" || v == "false" || v == "0") return false;
    bad(key, v, "True or False");
}

int log2Index(const std::string& key, const std::string& mib) {
    const uint64_t n = parseUnsigned(key, mib);
    if (n == 0 || (n & (n - 1))) bad(key, mib, "interval starts are powers of two, in MiB");
    const int i = 63 - __builtin_clzll(n);
    if (i >= 16) bad(key, mib, "intervals up to 32768 MiB");
    return i;
}

uint32_t divisions(const std::string& key, const std::string& v) {
    const uint64_t d = parseUnsigned(key, v);
    if (d != 0 && d != 1 && (d & (d - 1))) bad(key, v, "a power of two");
    return static_cast<uint32_t>(d);
}

// "4" (every interval) or "[256:1,512:2,>:8]" as CUDAAllocatorConfig::parseRoundUpPower2Divisions reads it.
std::array<uint32_t, 16> parseDivisions(const std::string& key, const std::string& v) {
    std::array<uint32_t, 16> out{};
    if (v.empty() || v.front() != '[') {
        out.fill(divisions(key, v));
        return out;
    }
    if (v.back() != ']') bad(key, v, "a list in brackets");
    bool first = true;
    size_t last = 0;
    for (const auto& item : splitTopLevel(v.substr(1, v.size() - 2))) {
        const auto colon = item.find(':');
        if (colon == std::string::npos) bad(key, item, "interval:divisions");
        const auto k = trim(item.substr(0, colon));
        const uint32_t d = divisions(key, trim(item.substr(colon + 1)));
        if (k == ">") {
            for (size_t i = first ? 0 : last + 1; i < out.size(); ++i) out[i] = d;
            continue;
        }
        const auto i = static_cast<size_t>(log2Index(key, k));
        if (first)
            for (size_t j = 0; j < i; ++j) out[j] = d;
        out[i] = d;
        first = false;
        last = i;
    }
    return out;
}

std::string mib(uint64_t bytes) {
    return std::to_string(bytes >> 20);
}

std::string number(double d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
}

} // namespace

SimConfig SimConfig::fromSettings(const AllocatorSettings& s) {
    SimConfig c;
    c.expandableSegments = s.expandableSegments;
    c.maxSplitSize = s.maxSplitSize;
    c.maxNonSplitRounding = s.maxNonSplitRounding;
    c.garbageCollectionThreshold = s.garbageCollectionThreshold;
    c.roundupPower2Divisions = s.roundupPower2Divisions;
    if (s.allocConf.find("cudaMallocAsync") != std::string::npos) c.backend = Backend::CudaMallocAsync;
    return c;
}

SimConfig SimConfig::with(const std::string& conf) const {
    SimConfig c = *this;
    for (const auto& item : splitTopLevel(conf)) {
        const auto colon = item.find(':');
        if (colon == std::string::npos) throw std::invalid_argument("expected key:value, got '" + item + "'");
        const auto key = trim(item.substr(0, colon)), v = trim(item.substr(colon + 1));
        if (key == "expandable_segments")
            c.expandableSegments = parseBool(key, v);
        else if (key == "max_split_size_mb") {
            const uint64_t n = parseUnsigned(key, v);
            if (n <= 20) bad(key, v, "more than 20 MiB, as PyTorch requires");
            c.maxSplitSize = n << 20;
        } else if (key == "max_non_split_rounding_mb")
            c.maxNonSplitRounding = parseUnsigned(key, v) << 20;
        else if (key == "garbage_collection_threshold")
            c.garbageCollectionThreshold = parseFraction(key, v, true);
        else if (key == "roundup_power2_divisions")
            c.roundupPower2Divisions = parseDivisions(key, v);
        else if (key == "per_process_memory_fraction")
            c.memoryFraction = parseFraction(key, v, false);
        else if (key == "backend") {
            if (v == "native")
                c.backend = Backend::Native;
            else if (v == "cudaMallocAsync")
                c.backend = Backend::CudaMallocAsync;
            else
                bad(key, v, "native or cudaMallocAsync");
        } else
            throw std::invalid_argument("unknown allocator setting '" + key + "'");
    }
    return c;
}

std::string SimConfig::toString() const {
    std::vector<std::string> parts;
    if (backend == Backend::CudaMallocAsync) parts.push_back("backend:cudaMallocAsync");
    if (expandableSegments) parts.push_back("expandable_segments:True");
    if (maxSplitSize != UINT64_MAX) parts.push_back("max_split_size_mb:" + mib(maxSplitSize));
    if (maxNonSplitRounding != (20ull << 20))
        parts.push_back("max_non_split_rounding_mb:" + mib(maxNonSplitRounding));
    if (garbageCollectionThreshold > 0)
        parts.push_back("garbage_collection_threshold:" + number(garbageCollectionThreshold));
    bool anyDiv = false, sameDiv = true;
    for (auto d : roundupPower2Divisions) {
        anyDiv |= d != 0;
        sameDiv &= d == roundupPower2Divisions[0];
    }
    if (anyDiv && sameDiv)
        parts.push_back("roundup_power2_divisions:" + std::to_string(roundupPower2Divisions[0]));
    if (anyDiv && !sameDiv) {
        std::string list;
        for (size_t i = 0; i < roundupPower2Divisions.size(); ++i) {
            if (!list.empty()) list += ',';
            list += std::to_string(1u << i);
            list += ':';
            list += std::to_string(roundupPower2Divisions[i]);
        }
        parts.push_back("roundup_power2_divisions:[" + list + "]");
    }
    if (memoryFraction > 0) parts.push_back("per_process_memory_fraction:" + number(memoryFraction));
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += ',';
        out += p;
    }
    return out.empty() ? "defaults" : out;
}

} // namespace vs
