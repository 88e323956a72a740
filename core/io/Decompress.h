#pragma once
// Whole-buffer gzip (zlib) and zstd decompression with a hard output limit (decompression bombs).
#include <cstdint>
#include <memory>
#include <span>

namespace vs {

struct DecompressedBytes {
    std::unique_ptr<uint8_t[]> data;
    uint64_t size = 0;
};

DecompressedBytes gunzip(std::span<const uint8_t> in, uint64_t limit);
DecompressedBytes unzstd(std::span<const uint8_t> in, uint64_t limit);

} // namespace vs
