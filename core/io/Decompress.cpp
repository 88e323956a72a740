#include "Decompress.h"

#include "LoadError.h"

#include <cstring>
#include <string>
#include <zlib.h>
#include <zstd.h>

namespace vs {
namespace {

// A growable output buffer; capacity doubles up to `limit`.
class Sink {
  public:
    Sink(uint64_t hint, uint64_t limit) : limit_(limit) { grow(std::max<uint64_t>(hint, 1 << 16)); }
    uint8_t* tail() { return data_.get() + size_; }
    uint64_t room() const { return cap_ - size_; }
    void commit(uint64_t n) { size_ += n; }
    void ensureRoom() {
        if (room() == 0) grow(cap_ * 2);
    }
    DecompressedBytes take() { return {std::move(data_), size_}; }

  private:
    void grow(uint64_t want) {
        if (size_ >= limit_)
            throw LoadError("decompressed data exceeds the limit of " + std::to_string(limit_ >> 20) +
                            " MiB");
        want = std::min(want, limit_);
        auto bigger = std::unique_ptr<uint8_t[]>(new uint8_t[want]);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_);
        data_ = std::move(bigger);
        cap_ = want;
    }
    std::unique_ptr<uint8_t[]> data_;
    uint64_t size_ = 0, cap_ = 0, limit_;
};

} // namespace

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
    Sink out(std::min(hint + 1, limit), limit);
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
    Sink out(std::min(hint, limit), limit);
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
