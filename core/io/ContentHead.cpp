#include "ContentHead.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace vs {
namespace {

constexpr size_t kRawHead = 64 << 10; // compressed bytes read: the first block of any stream

std::vector<uint8_t> inflateHead(std::span<const uint8_t> raw, size_t n) {
    std::vector<uint8_t> out(n);
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return {};                          // gzip or zlib header
    z.next_in = const_cast<Bytef*>(raw.data()), z.avail_in = uInt(raw.size()); // zlib only reads it
    z.next_out = out.data(), z.avail_out = uInt(n);
    inflate(&z, Z_SYNC_FLUSH);
    out.resize(n - z.avail_out);
    inflateEnd(&z);
    return out;
}

std::vector<uint8_t> unzstdHead(std::span<const uint8_t> raw, size_t n) {
    std::vector<uint8_t> out(n);
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> z(ZSTD_createDCtx(), ZSTD_freeDCtx);
    ZSTD_inBuffer in{raw.data(), raw.size(), 0};
    ZSTD_outBuffer o{out.data(), n, 0};
    while (o.pos < n && in.pos < in.size && !ZSTD_isError(ZSTD_decompressStream(z.get(), &o, &in))) {
    }
    out.resize(o.pos);
    return out;
}

} // namespace

std::vector<uint8_t> contentHead(std::span<const uint8_t> bytes, size_t n) {
    const auto raw = bytes.first(std::min(bytes.size(), kRawHead));
    if (raw.size() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) return inflateHead(raw, n);
    if (raw.size() >= 4 && raw[0] == 0x28 && raw[1] == 0xb5 && raw[2] == 0x2f && raw[3] == 0xfd)
        return unzstdHead(raw, n);
    return {raw.begin(), raw.begin() + std::ptrdiff_t(std::min(raw.size(), n))};
}

std::vector<uint8_t> contentHead(const std::string& path, size_t n) {
    std::vector<uint8_t> raw(kRawHead);
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return {};
    raw.resize(std::fread(raw.data(), 1, raw.size(), f));
    std::fclose(f);
    return contentHead(std::span<const uint8_t>(raw), n);
}

size_t utf8BomLength(std::span<const uint8_t> head) {
    return head.size() >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf ? 3 : 0;
}

bool looksLikeUtf16(std::span<const uint8_t> head) {
    if (head.size() < 2) return false;
    if ((head[0] == 0xff && head[1] == 0xfe) || (head[0] == 0xfe && head[1] == 0xff)) return true;
    auto opens = [](uint8_t c) { return c == '{' || c == '['; };
    return (opens(head[0]) && head[1] == 0) || (head[0] == 0 && opens(head[1]));
}

bool looksLikeJson(std::span<const uint8_t> head) {
    if (looksLikeUtf16(head)) return true;
    for (uint8_t c : head.subspan(utf8BomLength(head))) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        return c == '{' || c == '[';
    }
    return false;
}

} // namespace vs
