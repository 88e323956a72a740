#include "Decompress.h"

#include "LoadError.h"
#include "MemoryBudget.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <zlib.h>
#include <zstd.h>

namespace vs {

void DecompressionBound::check(uint64_t bytes) const {
    if (bytes > ratioBound_)
        throw LoadError("the compressed data expands more than " + std::to_string(kMaxDecompressionRatio) +
                        " times (past " + MemoryBudget::describe(ratioBound_) +
                        "): a decompression bomb, not a capture (decompress it yourself to open it anyway)");
    if (bytes > budget_) throw LoadError(MemoryBudget::exceededMessage(budget_));
}

namespace {

// A growable output buffer; capacity doubles up to the bounds, checked before it grows. realloc moves
// a large block by remapping its pages, so growing never holds the old and the new buffer at once.
class Sink {
  public:
    Sink(uint64_t hint, uint64_t compressedBytes, uint64_t budget) : bound_(compressedBytes, budget) {
        grow(std::max<uint64_t>(std::min(hint, bound_.most()), 1 << 16));
    }
    uint8_t* tail() { return data_.get() + size_; }
    uint64_t room() const { return cap_ - size_; }
    void commit(uint64_t n) { size_ += n; }
    void ensureRoom() {
        if (room() == 0) grow(cap_ * 2);
    }
    DecompressedBytes take() { return {std::move(data_), size_}; }
    // A size the stream declares up front is checked before anything is decompressed.
    void expect(uint64_t declared) const { bound_.check(declared); }

  private:
    void grow(uint64_t want) {
        bound_.check(size_ + 1); // full at a bound: one more byte would pass it
        want = std::min(want, bound_.most());
        void* bigger = std::realloc(data_.get(), want);
        if (!bigger) throw std::bad_alloc();
        (void)data_.release();
        data_.reset(static_cast<uint8_t*>(bigger));
        cap_ = want;
    }
    DecompressionBound bound_;
    MallocBytes data_;
    uint64_t size_ = 0, cap_ = 0;
};

} // namespace

uint64_t maxDecompressedFor(uint64_t compressedBytes) {
    const uint64_t slack = 64ull << 20; // small files of a few KiB expand by more (headers, tables)
    return compressedBytes > (UINT64_MAX - slack) / kMaxDecompressionRatio
               ? UINT64_MAX
               : compressedBytes * kMaxDecompressionRatio + slack;
}

namespace {
// zlib's state, ended on every way out (a bound passed mid-stream throws from the sink).
struct Inflater {
    z_stream z{};
    Inflater() {
        if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw LoadError("zlib initialisation failed");
    }
    ~Inflater() { inflateEnd(&z); }
    Inflater(const Inflater&) = delete;
    Inflater& operator=(const Inflater&) = delete;
};
} // namespace

DecompressedBytes gunzip(std::span<const uint8_t> in, uint64_t limit) {
    Inflater inflater;
    z_stream& z = inflater.z;
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
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
            throw LoadError(std::string("gzip data is corrupt or truncated (") +
                                (z.msg ? z.msg : "no detail") + ")",
                            consumed);
    }
    return out.take();
}

DecompressedBytes unzstd(std::span<const uint8_t> in, uint64_t limit) {
    const unsigned long long known = ZSTD_getFrameContentSize(in.data(), in.size());
    const uint64_t hint = (known == ZSTD_CONTENTSIZE_UNKNOWN || known == ZSTD_CONTENTSIZE_ERROR)
                              ? in.size() * 8
                              : static_cast<uint64_t>(known) + 1;
    if (known != ZSTD_CONTENTSIZE_UNKNOWN && known != ZSTD_CONTENTSIZE_ERROR)
        DecompressionBound(in.size(), limit).check(known); // before anything is decompressed
    Sink out(hint, in.size(), limit);
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
