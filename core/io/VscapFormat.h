#pragma once
// The .vscap container: constants and the varint coding shared by its writer and reader.
// The layout is specified in docs/vscap.md; keep the two in step.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace vs::vscap {

inline constexpr char kMagic[8] = {'V', 'S', 'C', 'A', 'P', '\0', '\r', '\n'};
inline constexpr uint16_t kVersionMajor = 1; // a reader refuses a newer major version
inline constexpr uint16_t kVersionMinor = 0; // a newer minor version only adds record kinds
inline constexpr size_t kHeaderSize = 16;
inline constexpr char kChunkMagic[4] = {'V', 'S', 'C', 'K'};
inline constexpr size_t kChunkHeaderSize = 20;
inline constexpr uint32_t kMaxChunkBytes = 64u << 20; // stored and raw; larger is corruption

enum class Codec : uint8_t { None = 0, Zstd = 1, Zlib = 2 };

enum class Record : uint32_t {
    String = 1,
    Frame = 2,
    Stack = 3,
    Stream = 4,
    Device = 5,
    Settings = 6,
    Events = 7,
    Annotation = 8,
    Mark = 9,
    ClockSync = 10,
    Segments = 11,
    EventText = 12,
    Dropped = 13,
    Meta = 14,
    End = 15,
    Retention = 16,    // reserved for retention graphs; skipped by this reader
    Reserve = 17,      // a device's expected event count: lets a reader size its columns once
    Tags = 18,         // what the recorder saw tensors to be (parameters, gradients, optimizer state, inputs)
    DriverMemory = 19, // the driver's used memory, device-wide and this process's
    Part = 20,         // the records after it are another recorder's of the same process (ids restart)
    BlockAnnotation = 21, // a text attached to a block after the fact (PyTorch's 'annotate' entries)
};

// The Meta key of a device's ring-buffer state (Records::ringBuffer reads it; not listed as a fact).
inline constexpr std::string_view kRingBufferMeta = "ring_buffer";

inline uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Appends little-endian integers and LEB128 varints to a byte string.
class ByteWriter {
  public:
    void varint(uint64_t v) {
        while (v >= 0x80) {
            out_.push_back(static_cast<char>(v | 0x80));
            v >>= 7;
        }
        out_.push_back(static_cast<char>(v));
    }
    void svarint(int64_t v) { varint(zigzag(v)); }
    void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u16(uint16_t v) { raw(&v, 2); }
    void u32(uint32_t v) { raw(&v, 4); }
    void f64(double v) { raw(&v, 8); }
    void bytes(std::string_view s) { out_.append(s); }
    void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
    std::string& str() { return out_; }
    size_t size() const { return out_.size(); }
    void clear() { out_.clear(); }

  private:
    std::string out_;
};

} // namespace vs::vscap
