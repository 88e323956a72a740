#pragma once
// The bytes of an input file: memory-mapped when plain, decompressed into memory when gzip or zstd.
#include "Decompress.h"
#include "MemoryBudget.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace vs {

enum class Compression { None, Gzip, Zstd };
Compression sniffCompression(std::span<const uint8_t> bytes); // by the magic bytes, not the name

class InputBuffer {
  public:
    // Opens `path`; detects gzip/zstd by their magic bytes, not by the name. Decompressed bytes may
    // take at most `budget` (and see Decompress.h for the ratio bound). Throws LoadError.
    static InputBuffer open(const std::string& path, uint64_t budget = MemoryBudget::processDefault());
    // Maps `path` as it is, compressed or not (compression() says which), for a reader that
    // decompresses as it reads (DecompressStream.h). Throws LoadError.
    static InputBuffer openAsStored(const std::string& path);
    // Wraps bytes already in memory (tests, fuzzing); decompresses them if compressed.
    static InputBuffer fromMemory(std::span<const uint8_t> bytes,
                                  uint64_t budget = MemoryBudget::processDefault());

    InputBuffer(InputBuffer&&) noexcept;
    InputBuffer& operator=(InputBuffer&&) noexcept;
    ~InputBuffer();

    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    // Bytes this buffer holds in memory of its own (decompressed data; a mapped file holds none).
    uint64_t ownedBytes() const { return owned_ ? size_ : 0; }
    Compression compression() const { return compression_; }
    uint64_t fileSize() const { return fileSize_; }
    // Lets the kernel drop already-parsed pages of a mapped file from memory (they can be re-read).
    void releaseBefore(uint64_t offset);
    // A pass that needs each byte once, in order: `f(window, offset)` receives consecutive windows
    // of the bytes and returns how far to move on (at least 1 while it wants more; 0 stops). A
    // mapped file is read with pread(2) into a buffer of 1 MiB: mapping its pages costs four times
    // as much on a virtual machine, and they would stay resident until released.
    void
    readWindows(const std::function<uint64_t(std::span<const uint8_t> window, uint64_t offset)>& f) const;

  private:
    InputBuffer() = default;
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    uint64_t fileSize_ = 0;
    uint64_t released_ = 0;
    void* mapping_ = nullptr;
    int fd_ = -1;       // the mapped file's, for readWindows
    MallocBytes owned_; // decompressed bytes (Decompress.h)
    Compression compression_ = Compression::None;
};

} // namespace vs
