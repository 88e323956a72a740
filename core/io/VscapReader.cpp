#include "VscapReader.h"

#include "DamagedCapture.h"
#include "InputBuffer.h"
#include "LineRange.h"
#include "util/Format.h"

#include <cstring>
#include <zlib.h>
#include <zstd.h>

namespace vs::vscap {

bool looksLikeVscap(std::span<const uint8_t> bytes) {
    return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

static uint32_t le32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

Decoder::Decoder(Capture& capture) : c_(capture), records_(std::make_unique<Records>(capture)) {}
Decoder::~Decoder() = default;

void Decoder::setStreamSize(uint64_t bytes) {
    // 16 events per stored byte: far above the best ratio seen (1.5 on loop-like traces).
    reserveLimit_ = bytes * 16;
    records_->setReserveLimit(reserveLimit_);
    streamSize_ = bytes;
    budgetRecords(budget_, 0);
}

void Decoder::setLimits(uint64_t maxMemory, uint64_t maxDecompressed) {
    budget_ = maxMemory;
    maxDecompressed_ = maxDecompressed;
    budgetRecords(budget_, 0);
}

// The records decoded from now may build what is `left` of the budget and, in a file of known size,
// at most kExpansion times its bytes (plus kSlack) minus what was `used` before: the best recordings
// take 0.6 bytes per event (50x in memory), so only a decompression bomb comes near 4096x.
void Decoder::budgetRecords(uint64_t left, uint64_t used) {
    const uint64_t byFile = streamSize_ && streamSize_ < (UINT64_MAX - kSlack) / kExpansion
                                ? streamSize_ * kExpansion + kSlack
                                : UINT64_MAX;
    const uint64_t fileLeft = byFile - std::min(byFile, used);
    if (fileLeft < left)
        records_->setMemoryBudget(fileLeft, kExpansion, streamSize_);
    else
        records_->setMemoryBudget(left);
}

void Decoder::damaged(const std::string& what, uint64_t offset) const {
    throw DamagedCapture(what, offset, chunks_);
}

bool Decoder::readHeader(std::span<const uint8_t> bytes) {
    if (bytes.size() < kHeaderSize) {
        if (std::memcmp(bytes.data(), kMagic, std::min(bytes.size(), sizeof kMagic)) != 0)
            throw LoadError("not a .vscap capture (bad magic)", 0);
        return false;
    }
    if (!looksLikeVscap(bytes)) throw LoadError("not a .vscap capture (bad magic)", 0);
    const uint16_t major = static_cast<uint16_t>(bytes[8] | bytes[9] << 8);
    if (major != kVersionMajor)
        throw LoadError(".vscap version " + std::to_string(major) +
                        " is not supported (this build reads version " + std::to_string(kVersionMajor) +
                        "); update vramscope");
    headerSeen_ = true;
    return true;
}

static constexpr const char* kSizeFieldDamaged = "a chunk's size field disagrees with the data after it";

static uint32_t crcOf(std::span<const uint8_t> s) {
    return static_cast<uint32_t>(crc32(0, s.data(), static_cast<uInt>(s.size())));
}

// Calls `at(p)` for every place after the chunk header at the front of `rest` where a chunk header
// could start (its magic), then for the end of `rest`; stops when it returns true.
template <class At> static bool anyChunkBoundary(std::span<const uint8_t> rest, At at) {
    const std::string_view text(reinterpret_cast<const char*>(rest.data()), rest.size());
    for (size_t p = text.find({kChunkMagic, 4}, kChunkHeaderSize); p != std::string_view::npos;
         p = text.find({kChunkMagic, 4}, p + 1))
        if (at(p)) return true;
    return at(rest.size());
}

// For a chunk (header at the front of `rest`) whose size field does not fit its data: whether the
// data up to a later chunk boundary is what its checksum covers (the size field alone is wrong),
// or an intact chunk follows it (the stream does not end inside it, so it was not cut).
static bool sizeFieldIsDamaged(std::span<const uint8_t> rest, bool orIntactChunkFollows) {
    if (rest.size() < kChunkHeaderSize || std::memcmp(rest.data(), kChunkMagic, sizeof kChunkMagic) != 0)
        return false;
    const uint32_t crc = le32(rest.data() + 16);
    return anyChunkBoundary(rest, [&](size_t p) {
        if (crcOf(rest.subspan(kChunkHeaderSize, p - kChunkHeaderSize)) == crc) return true;
        if (!orIntactChunkFollows || rest.size() - p < kChunkHeaderSize) return false;
        const uint32_t stored = le32(rest.data() + p + 8);
        return stored <= rest.size() - p - kChunkHeaderSize &&
               crcOf(rest.subspan(p + kChunkHeaderSize, stored)) == le32(rest.data() + p + 16);
    });
}

size_t Decoder::consume(std::span<const uint8_t> bytes, uint64_t offset) {
    size_t pos = 0;
    if (!headerSeen_) {
        if (!readHeader(bytes)) return 0;
        pos = kHeaderSize;
    }
    while (bytes.size() - pos >= kChunkHeaderSize) {
        const uint8_t* h = bytes.data() + pos;
        if (std::memcmp(h, kChunkMagic, sizeof kChunkMagic) != 0)
            damaged("no chunk starts there", offset + pos);
        const uint32_t stored = le32(h + 8), raw = le32(h + 12), crc = le32(h + 16);
        if (stored > kMaxChunkBytes || raw > kMaxChunkBytes)
            damaged("a chunk's size field is out of range", offset + pos);
        if (bytes.size() - pos - kChunkHeaderSize < stored) break; // the rest has not arrived (or was cut)
        const auto payload = bytes.subspan(pos + kChunkHeaderSize, stored);
        if (crcOf(payload) != crc)
            damaged(sizeFieldIsDamaged(bytes.subspan(pos), false)
                        ? kSizeFieldDamaged
                        : "a chunk's checksum does not match its data",
                    offset + pos);
        if (raw > maxDecompressed_ - decompressed_)
            throw LoadError("the capture decompresses to more than " +
                                humanBytes(static_cast<int64_t>(maxDecompressed_)) +
                                " (a decompression bomb, or raise the limit with --max-memory)",
                            offset + pos);
        decompressed_ += raw;
        readChunk(payload, h[4], raw, offset + pos);
        pos += kChunkHeaderSize + stored;
        ++chunks_;
    }
    return pos;
}

void Decoder::readChunk(std::span<const uint8_t> stored, uint8_t codec, uint32_t rawSize, uint64_t offset) {
    scratch_.resize(rawSize + Records::kPadding);
    std::memset(scratch_.data() + rawSize, 0, Records::kPadding);
    bool ok;
    if (codec == uint8_t(Codec::Zstd)) {
        const size_t n = ZSTD_decompress(scratch_.data(), rawSize, stored.data(), stored.size());
        ok = !ZSTD_isError(n) && n == rawSize;
    } else if (codec == uint8_t(Codec::Zlib)) {
        uLongf n = rawSize;
        ok = uncompress(scratch_.data(), &n, stored.data(), static_cast<uLong>(stored.size())) == Z_OK &&
             n == rawSize;
    } else if (codec == uint8_t(Codec::None)) {
        ok = stored.size() == rawSize;
        if (ok) std::memcpy(scratch_.data(), stored.data(), rawSize);
    } else {
        damaged("unknown chunk codec " + std::to_string(codec), offset);
    }
    if (!ok) damaged("a chunk does not decompress to its size", offset);
    const std::span<const uint8_t> raw{scratch_.data(), rawSize};
    records_->read(raw, offset + kChunkHeaderSize);
    ended_ = records_->ended();
    dropped_ += records_->dropped() - droppedBefore_;
    droppedBefore_ = records_->dropped();
    if (records_->partLevel() && !c_.cudaLevel) startCudaLevel();
}

// `record --native`: the CUPTI agent's file follows the PyTorch recorder's, after a Part record.
// Its ids restart, so it is decoded by fresh Records into a capture of its own (the CUDA level),
// under what is left of the same memory budget.
void Decoder::startCudaLevel() {
    auto level = std::make_shared<Capture>();
    level->path = c_.path;
    level->format = c_.format;
    const uint64_t used = records_->charged();
    linesOutOfRange_ += records_->linesOutOfRange();
    c_.cudaLevel = level;
    records_ = std::make_unique<Records>(*level);
    budgetRecords(budget_ - std::min(budget_, used), used);
    records_->setReserveLimit(reserveLimit_);
    droppedBefore_ = 0;
}

void Decoder::finish(std::span<const uint8_t> leftover, uint64_t offset) {
    if (!headerSeen_) throw LoadError("not a .vscap capture (shorter than its header)", 0);
    if (sizeFieldIsDamaged(leftover, true)) damaged(kSizeFieldDamaged, offset);
    if (!leftover.empty())
        c_.warnings.push_back("the capture was cut off: read its " + std::to_string(chunks_) +
                              " complete chunks; the last " + std::to_string(leftover.size()) +
                              " bytes are incomplete");
    else if (!ended_)
        c_.warnings.push_back(
            "the recording did not finish cleanly (the program was killed or is still running); "
            "read up to its last complete chunk");
    warnIncomplete();
}

void Decoder::finishBeforeDamage(uint64_t offset, const std::string& what) {
    c_.warnings.push_back("the capture is damaged at byte " + std::to_string(offset) + " (" + what +
                          "): only the " + std::to_string(chunks_) + " chunks before it were read");
    warnIncomplete();
}

void Decoder::warnIncomplete() {
    for (const auto& d : c_.devices)
        if (!d.hasFinalSnapshot) {
            c_.warnings.push_back(
                "the file has no final allocator state (the recorder was killed before writing "
                "it): memory allocated before recording started cannot be told apart");
            break;
        }
    if (const uint64_t lines = linesOutOfRange_ + records_->linesOutOfRange())
        c_.warnings.push_back(linesOutOfRangeWarning(lines));
    if (dropped_)
        c_.warnings.push_back(
            "the recorder dropped " + std::to_string(dropped_) +
            " events (its buffer was full): memory figures after the first drop may be off");
}

} // namespace vs::vscap

namespace vs {

// Feeds the whole stream to `decoder`, then tells it how the stream ended.
static void feedAll(vscap::Decoder& decoder, std::span<const uint8_t> bytes, const LoadOptions& options,
                    InputBuffer* mapped) {
    size_t pos = 0;
    // Feed a few MiB at a time so progress and cancel stay responsive; widen for a bigger chunk.
    constexpr size_t kStep = 8u << 20;
    size_t window = kStep;
    while (pos < bytes.size()) {
        const size_t w = std::min(bytes.size() - pos, window);
        const size_t used = decoder.consume(bytes.subspan(pos, w), pos);
        if (used == 0) {
            if (w == bytes.size() - pos) break; // what is left is an incomplete chunk
            window *= 2;
            continue;
        }
        window = kStep;
        pos += used;
        if (mapped) mapped->releaseBefore(pos);
        if (options.progress.report && !options.progress.report(pos, bytes.size())) throw Cancelled();
    }
    decoder.finish(bytes.subspan(pos), pos);
}

static std::unique_ptr<Capture> decodeAll(std::span<const uint8_t> bytes, const LoadOptions& options,
                                          InputBuffer* mapped) {
    auto capture = std::make_unique<Capture>();
    vscap::Decoder decoder(*capture);
    decoder.setStreamSize(bytes.size());
    decoder.setLimits(options.maxMemory, options.maxDecompressed);
    try {
        feedAll(decoder, bytes, options, mapped);
    } catch (const DamagedCapture& e) {
        if (!options.openIntactPart) throw;
        decoder.finishBeforeDamage(e.damagedAt(), e.reason());
    }
    if (capture->devices.empty())
        throw LoadError("the recording holds no allocator events (it ended before the program used the GPU)");
    capture->format = "vscap";
    return capture;
}

std::unique_ptr<Capture> loadVscapFile(const std::string& path, const LoadOptions& options) {
    auto input = InputBuffer::open(path, options.maxDecompressed);
    auto capture = decodeAll(input.bytes(), options, &input);
    capture->path = path;
    return capture;
}

std::unique_ptr<Capture> loadVscapBytes(std::span<const uint8_t> bytes, const LoadOptions& options) {
    return decodeAll(bytes, options, nullptr);
}

} // namespace vs
