#pragma once
// Whole-buffer gzip (zlib) and zstd decompression with two hard output bounds, checked before the
// memory is taken: the load's memory budget, and kMaxDecompressionRatio times the compressed size
// (real snapshots compress 10-30 times; a stream of zeros 30,000 times). A file past it can still be
// opened decompressed.
#include <cstdint>
#include <memory>
#include <span>

namespace vs {

struct DecompressedBytes {
    std::unique_ptr<uint8_t[]> data;
    uint64_t size = 0;
};

constexpr uint64_t kMaxDecompressionRatio = 256;
uint64_t maxDecompressedFor(uint64_t compressedBytes); // the ratio bound, plus slack for tiny inputs

// `budget`: the most the output may take (LoadOptions::maxMemory). Throw LoadError.
DecompressedBytes gunzip(std::span<const uint8_t> in, uint64_t limit);
DecompressedBytes unzstd(std::span<const uint8_t> in, uint64_t limit);

} // namespace vs
