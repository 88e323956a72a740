#include "DecompressStream.h"

#include "LoadError.h"

#include <algorithm>
#include <string>
#include <zlib.h>
#include <zstd.h>

namespace vs {

struct DecompressStream::Codecs {
    z_stream z{};
    bool zOpen = false;
    ZSTD_DStream* zstd = nullptr;
    size_t zstdLast = 1; // ZSTD_decompressStream's last answer: 0 at a frame's end
};

DecompressStream::DecompressStream(std::span<const uint8_t> compressed, Compression codec, uint64_t budget)
    : in_(compressed), codec_(codec), bound_(compressed.size(), budget), window_(new uint8_t[kWindow]),
      codecs_(std::make_unique<Codecs>()) {
    if (codec_ == Compression::Gzip) {
        if (inflateInit2(&codecs_->z, 16 + MAX_WBITS) != Z_OK) throw LoadError("zlib initialisation failed");
        codecs_->zOpen = true;
    } else if (codec_ == Compression::Zstd) {
        const unsigned long long known = ZSTD_getFrameContentSize(in_.data(), in_.size());
        if (known != ZSTD_CONTENTSIZE_UNKNOWN && known != ZSTD_CONTENTSIZE_ERROR) bound_.check(known);
        codecs_->zstd = ZSTD_createDStream();
    }
}

DecompressStream::~DecompressStream() {
    if (codecs_->zOpen) inflateEnd(&codecs_->z);
    if (codecs_->zstd) ZSTD_freeDStream(codecs_->zstd);
}

std::span<const uint8_t> DecompressStream::next() {
    if (codec_ == Compression::None) { // the input itself, once: mapped, not held, so no bound
        if (ended_) return {};
        ended_ = true;
        consumed_ = produced_ = in_.size();
        return in_;
    }
    size_t n = 0;
    while (n == 0 && !ended_) n = codec_ == Compression::Gzip ? inflateWindow() : unzstdWindow();
    produced_ += n;
    bound_.check(produced_); // before the reader sees a byte past a bound
    return {window_.get(), n};
}

size_t DecompressStream::inflateWindow() {
    z_stream& z = codecs_->z;
    z.next_in = const_cast<Bytef*>(in_.data() + consumed_);
    z.avail_in = static_cast<uInt>(std::min<uint64_t>(in_.size() - consumed_, 1u << 30));
    z.next_out = window_.get();
    z.avail_out = kWindow;
    const uInt before = z.avail_in;
    int rc = inflate(&z, Z_NO_FLUSH);
    consumed_ += before - z.avail_in;
    const size_t n = kWindow - z.avail_out;
    if (rc == Z_STREAM_END) ended_ = true;
    if (rc == Z_BUF_ERROR && n == 0 && consumed_ == in_.size()) rc = Z_DATA_ERROR; // input ended early
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
        throw LoadError(std::string("gzip data is corrupt or truncated (") + (z.msg ? z.msg : "no detail") +
                            ")",
                        consumed_);
    return n;
}

size_t DecompressStream::unzstdWindow() {
    if (consumed_ == in_.size() && codecs_->zstdLast == 0) return ended_ = true, 0;
    ZSTD_inBuffer ib{in_.data(), in_.size(), consumed_};
    ZSTD_outBuffer ob{window_.get(), kWindow, 0};
    const size_t rc = ZSTD_decompressStream(codecs_->zstd, &ob, &ib);
    if (ZSTD_isError(rc))
        throw LoadError(std::string("zstd data is corrupt (") + ZSTD_getErrorName(rc) + ")", ib.pos);
    const bool stuck = ib.pos == consumed_ && ob.pos == 0;
    consumed_ = ib.pos;
    codecs_->zstdLast = rc;
    if (stuck && consumed_ == in_.size()) {
        if (rc != 0) throw LoadError("zstd data is truncated", ib.pos);
        ended_ = true;
    }
    return ob.pos;
}

} // namespace vs
