#pragma once
// gzip or zstd input decompressed a window at a time, for a reader that needs each byte once, in
// order (a JSON trace's SAX parse): only one window is in memory, and the bytes produced are checked
// against the load's bounds (DecompressionBound: the budget and the ratio) as they are produced. A
// decompression bomb is refused after costing the time to inflate up to a bound, not the memory.
#include "Decompress.h"
#include "InputBuffer.h"

#include <cstdint>
#include <memory>
#include <span>

namespace vs {

class DecompressStream {
  public:
    static constexpr size_t kWindow = 1 << 20;
    DecompressStream(std::span<const uint8_t> compressed, Compression codec, uint64_t budget);
    ~DecompressStream();
    DecompressStream(const DecompressStream&) = delete;
    DecompressStream& operator=(const DecompressStream&) = delete;

    // The next window of decompressed bytes, empty at the end. Throws LoadError (corrupt,
    // truncated, or past a bound).
    std::span<const uint8_t> next();
    uint64_t consumed() const { return consumed_; } // compressed bytes read so far
    uint64_t produced() const { return produced_; }
    uint64_t compressedSize() const { return in_.size(); }
    bool plain() const { return codec_ == Compression::None; } // the input is its own one window

  private:
    size_t inflateWindow();
    size_t unzstdWindow();

    std::span<const uint8_t> in_;
    Compression codec_;
    DecompressionBound bound_;
    std::unique_ptr<uint8_t[]> window_;
    struct Codecs;
    std::unique_ptr<Codecs> codecs_;
    uint64_t consumed_ = 0, produced_ = 0;
    bool ended_ = false;
};

} // namespace vs
