#include "VscapWriter.h"

#include <stdexcept>
#include <zlib.h>
#include <zstd.h>

namespace vs::vscap {

Writer::Writer(Sink sink, Options options) : sink_(std::move(sink)), options_(options) {
    ByteWriter header;
    header.raw(kMagic, sizeof kMagic);
    header.u16(kVersionMajor);
    header.u16(kVersionMinor);
    header.u32(0); // flags, none defined
    sink_(header.str());
}

ByteWriter& Writer::beginRecord(Record kind) {
    kind_ = kind;
    body_.clear();
    return body_;
}

void Writer::endRecord() {
    appendRecord(chunk_, kind_, body_.str());
    if (chunk_.size() >= options_.chunkBytes) flush();
}

static std::string compress(Codec codec, int level, const std::string& raw) {
    std::string out;
    if (codec == Codec::Zstd) {
        out.resize(ZSTD_compressBound(raw.size()));
        const size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), level);
        if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
        out.resize(n);
    } else if (codec == Codec::Zlib) {
        uLongf n = compressBound(static_cast<uLong>(raw.size()));
        out.resize(n);
        if (compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(raw.data()),
                      static_cast<uLong>(raw.size()), level) != Z_OK)
            throw std::runtime_error("zlib compression failed");
        out.resize(n);
    } else {
        out = raw;
    }
    return out;
}

void Writer::flush() {
    if (chunk_.size() == 0) return;
    if (chunk_.size() > kMaxChunkBytes) throw std::runtime_error("vscap: one record exceeds the chunk limit");
    const std::string stored = compress(options_.codec, options_.level, chunk_.str());
    ByteWriter out;
    out.raw(kChunkMagic, sizeof kChunkMagic);
    out.u8(static_cast<uint8_t>(options_.codec));
    out.u8(0), out.u8(0), out.u8(0);
    out.u32(static_cast<uint32_t>(stored.size()));
    out.u32(static_cast<uint32_t>(chunk_.size()));
    out.u32(static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(stored.data()), static_cast<uInt>(stored.size()))));
    out.bytes(stored);
    sink_(out.str());
    chunk_.clear();
}

void Writer::finish() {
    write(EndRecord{});
    flush();
}

} // namespace vs::vscap
