#pragma once
// Structure-aware fuzzing of the rank summary reader (compare/RankSummaryFile.h): turns fuzzer bytes
// into a summary file that is well framed (magic, versions, a zstd frame whose declared size usually
// matches) but whose fields hold hostile values: counts of series and strings far past what follows
// (2^32, 2^63), values at the int64 limits, iterations that disagree with the step series, slices
// that are not 2048, a lying payload size, a newer major version, now and then no checksum. Random bytes
// rarely get past the frame's checksum; these reach every field's check.
#include "FuzzBytes.h"
#include "compare/RankSummaryFile.h"
#include "util/Varint.h"

#include <zstd.h>

#include <memory>
#include <string>
#include <vector>

namespace vs::fuzz {

class HostileRankSummary {
  public:
    explicit HostileRankSummary(FuzzBytes& in) : in_(in) {}

    std::string build() {
        std::vector<uint8_t> p;
        str(p, "/cluster/job/rank3.pickle");
        appendVarint(p, uint64_t(value(1 << 30)));                     // source size
        for (int i = 0; i < 2; ++i) appendVarint(p, zigzag(value(i))); // mtime, rank
        appendVarint(p, zigzag(value(0)));                             // device
        appendVarint(p, uint64_t(value(1000)));                        // events
        // 2 times; peak allocated and reserved, final allocated and reserved (never above the peaks:
        // the reader refuses that), growth
        for (int64_t usual : {0, 1000, 4000, 5000, 2000, 3000, 6000}) appendVarint(p, zigzag(value(usual)));
        appendVarint(p, uint64_t(value(0))); // OOMs
        str(p, "ProfilerStep#");
        appendVarint(p, uint64_t(value(in_.below(3) == 1 ? 0 : 5))); // iterations
        appendVarint(p, uint64_t(value(1)));                         // per slot
        for (int k = 0; k < 5; ++k) series(p, k < 3 ? 5 : RankSummary::kBins);
        for (size_t i = 0, n = in_.below(4); i < n; ++i) p.push_back(in_.byte()); // a newer minor's fields
        return frame(p);
    }

  private:
    static constexpr uint64_t kCounts[] = {0, 1, 5, 2047, 2049, 4097, 1ull << 32, 1ull << 63, UINT64_MAX};

    // One field in sixteen hostile (so that a few in a summary are, and now and then none); a zero
    // byte (past the recipe's end) is the usual value, so that any recipe is a complete summary.
    static bool hostile(uint8_t b) { return (b & 15) == 15; }
    uint64_t count(uint64_t usual) {
        const uint8_t b = in_.byte();
        return hostile(b) ? kCounts[(b >> 4) % (sizeof kCounts / sizeof kCounts[0])] : usual;
    }
    int64_t value(int64_t usual) { return hostile(in_.byte()) ? in_.integer(usual) : usual; }
    void str(std::vector<uint8_t>& p, const std::string& s) {
        appendVarint(p, count(s.size()));
        p.insert(p.end(), s.begin(), s.end());
    }
    // A series that claims `count` values and holds a few or the usual number of them.
    void series(std::vector<uint8_t>& p, size_t usual) {
        const uint64_t n = count(usual);
        appendVarint(p, n);
        const uint64_t held = n > usual ? (in_.flag() ? usual : 3) : n;
        for (uint64_t i = 0; i < held; ++i) appendVarint(p, zigzag(i % 64 == 0 ? value(1 << 20) : 512));
    }
    std::string frame(const std::vector<uint8_t>& payload) {
        std::string out(RankSummaryFile::kMagic, sizeof RankSummaryFile::kMagic);
        const uint16_t major = in_.below(16) == 15 ? uint16_t(in_.byte()) : RankSummaryFile::kMajor;
        const uint16_t minor = uint16_t(in_.byte());
        const uint32_t size = in_.below(16) == 15 ? uint32_t(in_.u64()) : uint32_t(payload.size());
        for (uint16_t v : {major, minor}) out.push_back(char(v & 0xff)), out.push_back(char(v >> 8));
        for (int i = 0; i < 4; ++i) out.push_back(char((size >> (8 * i)) & 0xff));
        // With the checksum the format requires (the reader refuses a frame without one) but now and
        // then: without it, every recipe stopped at that check.
        std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, in_.below(16) == 15 ? 0 : 1);
        std::string z(ZSTD_compressBound(payload.size()), '\0');
        const size_t n = ZSTD_compress2(cctx.get(), z.data(), z.size(), payload.data(), payload.size());
        if (!ZSTD_isError(n)) out.append(z.data(), in_.below(16) == 15 ? n / 2 : n); // now and then cut
        return out;
    }

    FuzzBytes& in_;
};

} // namespace vs::fuzz
