#pragma once
// gzip (zlib) and zstd decompression with two hard output bounds, checked while the bytes are produced:
// the load's memory budget, and kMaxDecompressionRatio times the compressed size (real snapshots
// compress 10-30 times; a stream of zeros 30,000 times). A file past it can still be opened
// decompressed. Two ways: the whole output in memory (pickles and .vscap files need it all), grown in
// place (realloc: the old and the new size are never both resident), or a window at a time for a
// reader that needs each byte once (DecompressStream.h), which a bomb costs time, never memory.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

namespace vs {

struct FreeBytes {
    void operator()(uint8_t* p) const { std::free(p); }
};
using MallocBytes = std::unique_ptr<uint8_t[], FreeBytes>;

struct DecompressedBytes {
    MallocBytes data;
    uint64_t size = 0;
};

constexpr uint64_t kMaxDecompressionRatio = 256;
uint64_t maxDecompressedFor(uint64_t compressedBytes); // the ratio bound, plus slack for tiny inputs

// The bounds on one input's decompressed bytes; check() throws the LoadError naming the one passed.
class DecompressionBound {
  public:
    DecompressionBound(uint64_t compressedBytes, uint64_t budget)
        : budget_(budget), ratioBound_(maxDecompressedFor(compressedBytes)) {}
    uint64_t most() const { return budget_ < ratioBound_ ? budget_ : ratioBound_; }
    void check(uint64_t bytes) const; // throws when bytes pass either bound
  private:
    uint64_t budget_, ratioBound_;
};

// `limit`: the most the output may take (LoadOptions::maxMemory). Throw LoadError.
DecompressedBytes gunzip(std::span<const uint8_t> in, uint64_t limit);
DecompressedBytes unzstd(std::span<const uint8_t> in, uint64_t limit);

} // namespace vs
