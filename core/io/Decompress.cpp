#include "Decompress.h"

#include "LoadError.h"
#include "MemoryBudget.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <zlib.h>
#include <zstd.h>

namespace vs {
namespace {

// A growable output buffer; capacity doubles up to the smaller of the budget and the ratio bound.
// Growth is refused before it is allocated.
class Sink {
  public:
    Sink(uint64_t hint, uint64_t compressedBytes, uint64_t budget)
        : budget_(budget), ratioBound_(maxDecompressedFor(compressedBytes)) {
        grow(std::max<uint64_t>(std::min(hint, std::min(budget_, ratioBound_)), 1 << 16));
    }
    uint8_t* tail() { return data_.get() + size_; }
    uint64_t room() const { return cap_ - size_; }
    void commit(uint64_t n) { size_ += n; }
    void ensureRoom() {
        if (room() == 0) grow(cap_ * 2);
    }
    DecompressedBytes take() { return {std::move(data_), size_}; }
    // A size the stream declares up front is checked before anything is decompressed.
    void expect(uint64_t declared) const {
        if (declared > ratioBound_) ratioExceeded();
        if (declared > budget_) throw LoadError(MemoryBudget::exceededMessage(budget_));
    }

  private:
    void grow(uint64_t want) {
        if (size_ >= ratioBound_) ratioExceeded();
        if (size_ >= budget_) throw LoadError(MemoryBudget::exceededMessage(budget_));
        want = std::min({want, budget_, ratioBound_});
        auto bigger = std::unique_ptr<uint8_t[]>(new uint8_t[want]);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_);
        data_ = std::move(bigger);
        cap_ = want;
    }
    [[noreturn]] void ratioExceeded() const {
        throw LoadError("the compressed data expands more than " + std::to_string(kMaxDecompressionRatio) +
                        " times (past " + MemoryBudget::describe(ratioBound_) +
                        "): a decompression bomb, not a capture (decompress it yourself to open it anyway)");
    }
    std::unique_ptr<uint8_t[]> data_;
    uint64_t size_ = 0, cap_ = 0, budget_, ratioBound_;
};

} // namespace

uint64_t maxDecompressedFor(uint64_t compressedBytes) {
    const uint64_t slack = 64ull << 20; // small files of a few KiB expand by more (headers, tables)
    return compressedBytes > (UINT64_MAX - slack) / kMaxDecompressionRatio
               ? UINT64_MAX
               : compressedBytes * kMaxDecompressionRatio + slack;
}

DecompressedBytes gunzip(std::span<const uint8_t> in, uint64_t limit) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw LoadError("zlib initialisation failed");
    // gzip stores the size modulo 2^32 in its last four bytes: a good first guess.
    uint64_t hint = in.size() * 4;
    if (in.size() >= 18) {
        uint32_t isize;
        std::memcpy(&isize, in.data() + in.size() - 4, 4);
        hint = std::max<uint64_t>(hint, isize);
    }
    Sink out(hint + 1, in.size(), limit);
    z.next_in = const_cast<Bytef*>(in.data());
    uint64_t consumed = 0;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        out.ensureRoom();
        const uInt inChunk = static_cast<uInt>(std::min<uint64_t>(in.size() - consumed, 1u << 30));
        const uInt outChunk = static_cast<uInt>(std::min<uint64_t>(out.room(), 1u << 30));
        z.avail_in = inChunk;
        z.next_out = out.tail();
        z.avail_out = outChunk;
        rc = inflate(&z, Z_NO_FLUSH);
        consumed += inChunk - z.avail_in;
        out.commit(outChunk - z.avail_out);
        if (rc == Z_BUF_ERROR && consumed == in.size()) rc = Z_DATA_ERROR; // input ended early
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
            inflateEnd(&z);
            throw LoadError(std::string("gzip data is corrupt or truncated (") +
                                (z.msg ? z.msg : "no detail") + ")",
                            consumed);
        }
    }
    inflateEnd(&z);
    return out.take();
}

DecompressedBytes unzstd(std::span<const uint8_t> in, uint64_t limit) {
    const unsigned long long known = ZSTD_getFrameContentSize(in.data(), in.size());
    const uint64_t hint = (known == ZSTD_CONTENTSIZE_UNKNOWN || known == ZSTD_CONTENTSIZE_ERROR)
                              ? in.size() * 8
                              : static_cast<uint64_t>(known) + 1;
    Sink out(hint, in.size(), limit);
    if (known != ZSTD_CONTENTSIZE_UNKNOWN && known != ZSTD_CONTENTSIZE_ERROR) out.expect(known);
    std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> ds(ZSTD_createDStream(), ZSTD_freeDStream);
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    size_t rc = 1;
    while (ib.pos < ib.size || rc != 0) {
        out.ensureRoom();
        ZSTD_outBuffer ob{out.tail(), out.room(), 0};
        const size_t before = ib.pos;
        rc = ZSTD_decompressStream(ds.get(), &ob, &ib);
        if (ZSTD_isError(rc))
            throw LoadError(std::string("zstd data is corrupt (") + ZSTD_getErrorName(rc) + ")", ib.pos);
        out.commit(ob.pos);
        if (rc != 0 && ib.pos == ib.size && ob.pos == 0 && before == ib.pos)
            throw LoadError("zstd data is truncated", ib.pos);
    }
    return out.take();
}

} // namespace vs
