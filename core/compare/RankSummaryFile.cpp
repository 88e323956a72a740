#include "RankSummaryFile.h"

#include "util/Varint.h"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace vs {
namespace {

constexpr size_t kHeader = 16; // magic, major, minor, payload size
// A path as the system takes it (PATH_MAX), and as much of an iteration marker (an annotation's name,
// an allocation site): a summary's strings were 64 KiB each, 6.4 GB over 20,000 files (issue 47).
constexpr uint64_t kMaxString = 4096;
constexpr int64_t kMaxBytes = int64_t(1) << 60; // any byte figure: far above any device, far from overflow
constexpr int64_t kMaxTime = int64_t(1) << 61;  // microseconds or nanoseconds (a span of two fits)

void putU16(std::string& out, uint16_t v) {
    out.push_back(char(v & 0xff)), out.push_back(char(v >> 8));
}
void putU32(std::string& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}
uint32_t getLE(const uint8_t* p, int n) {
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint32_t(p[i]) << (8 * i);
    return v;
}

// The payload: LEB128 varints, signed ones zigzagged, series as deltas (neighbouring slices are
// alike, so most deltas take a byte or two and compress further).
class PayloadWriter {
  public:
    void u(uint64_t v) { appendVarint(bytes_, v); }
    void s(int64_t v) { u(zigzag(v)); }
    void str(const std::string& v) {
        u(v.size());
        bytes_.insert(bytes_.end(), v.begin(), v.end());
    }
    void series(const std::vector<int64_t>& v) {
        u(v.size());
        uint64_t prev = 0; // unsigned: a delta wraps instead of overflowing
        for (int64_t x : v) s(int64_t(uint64_t(x) - prev)), prev = uint64_t(x);
    }
    const std::vector<uint8_t>& bytes() const { return bytes_; }

  private:
    std::vector<uint8_t> bytes_;
};

// Reads what PayloadWriter wrote, checking every step against the end and the bounds.
class PayloadReader {
  public:
    explicit PayloadReader(std::span<const uint8_t> b)
        : p_(b.data()), end_(b.data() + b.size()), begin_(b.data()) {}
    uint64_t u(const char* what) {
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            if (p_ == end_) fail(std::string("the summary ends inside ") + what);
            const uint8_t b = *p_++;
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        fail(std::string("an over-long number for ") + what);
    }
    int64_t s(const char* what, int64_t lo, int64_t hi) {
        const int64_t v = unzigzag(u(what));
        if (v < lo || v > hi) fail(std::string(what) + " out of range (" + std::to_string(v) + ")");
        return v;
    }
    uint64_t bounded(const char* what, uint64_t hi) {
        const uint64_t v = u(what);
        if (v > hi) fail(std::string(what) + " out of range (" + std::to_string(v) + ")");
        return v;
    }
    std::string str(const char* what) {
        const uint64_t n = bounded(what, kMaxString);
        if (n > uint64_t(end_ - p_)) fail(std::string("the summary ends inside ") + what);
        std::string v(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        return v;
    }
    std::vector<int64_t> series(const char* what, size_t most, int64_t lo, int64_t hi) {
        const uint64_t n = bounded(what, most);
        if (n > uint64_t(end_ - p_))
            fail(std::string("the summary ends inside ") + what); // a byte each at least
        std::vector<int64_t> v(n);
        uint64_t prev = 0;
        for (auto& x : v) {
            x = int64_t(prev + uint64_t(unzigzag(u(what))));
            if (x < lo || x > hi) fail(std::string(what) + " out of range (" + std::to_string(x) + ")");
            prev = uint64_t(x);
        }
        return v;
    }
    [[noreturn]] void fail(const std::string& why) const {
        throw RankSummaryError("not a readable rank summary: " + why + " (payload byte " +
                               std::to_string(p_ - begin_) + ")");
    }

  private:
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* begin_;
};

std::vector<uint8_t> payloadOf(const RankSummary& r, const SourceStamp& src) {
    PayloadWriter w;
    w.str(src.path), w.u(src.size), w.s(src.mtimeNs);
    w.s(r.rank), w.s(r.device), w.u(r.events), w.s(r.firstUs), w.s(r.lastUs);
    w.s(r.peakAllocated), w.s(r.peakReserved), w.s(r.finalAllocated), w.s(r.finalReserved), w.s(r.growth);
    w.u(r.ooms);
    w.str(r.marker.substr(0, kMaxString)), w.u(r.iterations), w.u(r.stepsPerSlot);
    for (const auto* v : {&r.stepUs, &r.stepPeak, &r.stepPeakReserved, &r.binAllocated, &r.binReserved})
        w.series(*v);
    return w.bytes();
}

// The v1 fields, in order; fields a newer minor version appends after them are left unread.
void readPayload(PayloadReader& in, RankSummaryFile& f) {
    RankSummary& r = f.summary;
    f.source.path = in.str("the source path");
    f.source.size = in.u("the source size");
    f.source.mtimeNs = in.s("the source time", INT64_MIN, INT64_MAX); // only compared
    r.path = f.source.path;
    r.rank = int(in.s("the rank", -1, INT32_MAX));
    r.device = int(in.s("the device", -1, INT32_MAX));
    r.events = in.bounded("the event count", uint64_t(1) << 48);
    r.firstUs = in.s("the first time", -kMaxTime, kMaxTime);
    r.lastUs = in.s("the last time", r.firstUs, kMaxTime);
    // memory held is never negative; growth (a difference) may be
    r.peakAllocated = in.s("the peak allocated", 0, kMaxBytes);
    r.peakReserved = in.s("the peak reserved", 0, kMaxBytes);
    r.finalAllocated = in.s("the final allocated", 0, kMaxBytes);
    r.finalReserved = in.s("the final reserved", 0, kMaxBytes);
    r.growth = in.s("the growth", -kMaxBytes, kMaxBytes);
    r.ooms = uint32_t(in.bounded("the OOM count", UINT32_MAX));
    r.marker = in.str("the iteration marker");
    r.iterations = in.bounded("the iteration count", r.events); // each begins at an event
    r.stepsPerSlot = uint32_t(in.bounded("the iterations per slot", uint64_t(1) << 31));
    r.stepUs = in.series("the step times", RankSummary::kMaxSlots, -kMaxTime, kMaxTime);
    r.stepPeak = in.series("the step peaks", RankSummary::kMaxSlots, 0, kMaxBytes);
    r.stepPeakReserved = in.series("the step peaks", RankSummary::kMaxSlots, 0, kMaxBytes);
    r.binAllocated = in.series("the time slices", RankSummary::kBins, 0, kMaxBytes);
    r.binReserved = in.series("the time slices", RankSummary::kBins, 0, kMaxBytes);
}

// What the readers of a summary (the heatmap's slices, the outliers) rely on.
void checkShape(const RankSummary& r, PayloadReader& in) {
    const size_t steps = r.stepUs.size();
    if ((r.stepsPerSlot & (r.stepsPerSlot - 1)) != 0 || r.stepsPerSlot == 0)
        in.fail("iterations per slot not a power of two");
    if (r.stepPeak.size() != steps || r.stepPeakReserved.size() != steps)
        in.fail("the per-step series differ in length");
    if (steps != (r.iterations + r.stepsPerSlot - 1) / r.stepsPerSlot)
        in.fail("the step series do not match the iteration count");
    if (r.binAllocated.size() != r.binReserved.size() ||
        (r.binAllocated.size() != RankSummary::kBins && !r.binAllocated.empty()))
        in.fail("the time slices are not " + std::to_string(RankSummary::kBins) + " or none");
    if (r.events > 0 && r.binAllocated.empty()) in.fail("events without time slices");
    if (!std::is_sorted(r.stepUs.begin(), r.stepUs.end())) in.fail("the step times go back");
    // the peak is the most held at any moment, the end's included: no capture ends above it
    if (r.finalAllocated > r.peakAllocated)
        in.fail("the final allocated (" + std::to_string(r.finalAllocated) + ") above the peak allocated (" +
                std::to_string(r.peakAllocated) + ")");
    if (r.finalReserved > r.peakReserved)
        in.fail("the final reserved (" + std::to_string(r.finalReserved) + ") above the peak reserved (" +
                std::to_string(r.peakReserved) + ")");
}

[[noreturn]] void headerFail(const std::string& why) {
    throw RankSummaryError("not a readable rank summary: " + why);
}

// What the format requires of the frame (docs/ranks.md): one zstd frame and nothing after it, its
// content size equal to the header's, and a checksum (without one a corrupt byte reads as a value).
void checkFrame(std::span<const uint8_t> frame, uint32_t size) {
    const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (declared != size) headerFail("the compressed payload is cut or does not match its header");
    if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size())
        headerFail("bytes after the compressed payload (one zstd frame, nothing after it)");
    constexpr uint8_t kChecksumFlag = 0x04; // the frame header descriptor's bit 2 (RFC 8878, 3.1.1.1.1)
    if (!(frame[4] & kChecksumFlag)) headerFail("the compressed payload has no checksum");
}

// One decompression context per thread, kept: ZSTD_decompress made and freed one per file.
ZSTD_DCtx* decompressor() {
    thread_local const std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(),
                                                                              ZSTD_freeDCtx);
    if (!ctx) throw std::bad_alloc();
    return ctx.get();
}

} // namespace

std::optional<SourceStamp> SourceStamp::of(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    SourceStamp s;
    std::error_code ec;
    const auto abs = std::filesystem::absolute(path, ec);
    s.path = ec ? path : abs.lexically_normal().string();
    s.size = uint64_t(st.st_size);
    s.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return s;
}

std::string encodeRankSummary(const RankSummary& summary, const SourceStamp& source) {
    if (source.path.size() > kMaxString)
        throw RankSummaryError("its path is longer than a rank summary holds (" + std::to_string(kMaxString) +
                               " bytes)");
    const std::vector<uint8_t> payload = payloadOf(summary, source);
    std::string out(RankSummaryFile::kMagic, sizeof RankSummaryFile::kMagic);
    putU16(out, RankSummaryFile::kMajor), putU16(out, RankSummaryFile::kMinor),
        putU32(out, uint32_t(payload.size()));
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 9); // a few KB once: worth the effort
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);     // a corrupt byte is told, not read
    std::string frame(ZSTD_compressBound(payload.size()), '\0');
    const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), payload.data(), payload.size());
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(n))
        throw std::runtime_error(std::string("cannot compress a rank summary: ") + ZSTD_getErrorName(n));
    return out.append(frame.data(), n);
}

RankSummaryFile decodeRankSummary(std::span<const uint8_t> bytes) {
    if (bytes.size() < kHeader || std::memcmp(bytes.data(), RankSummaryFile::kMagic, 8) != 0)
        headerFail("no rank summary header (made by vramscope-cli summarize)");
    RankSummaryFile f;
    const uint32_t major = getLE(bytes.data() + 8, 2), size = getLE(bytes.data() + 12, 4);
    f.minor = uint16_t(getLE(bytes.data() + 10, 2));
    if (major != RankSummaryFile::kMajor)
        headerFail("format version " + std::to_string(major) + " (this build reads version " +
                   std::to_string(RankSummaryFile::kMajor) + "; summarise the capture again)");
    if (size > RankSummaryFile::kMaxPayload) headerFail("a payload of " + std::to_string(size) + " bytes");
    const auto frame = bytes.subspan(kHeader);
    checkFrame(frame, size);
    std::vector<uint8_t> payload(size);
    const size_t n =
        ZSTD_decompressDCtx(decompressor(), payload.data(), payload.size(), frame.data(), frame.size());
    if (ZSTD_isError(n) || n != size)
        headerFail(std::string("corrupt payload (") + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short") +
                   ")");
    PayloadReader in(payload);
    readPayload(in, f);
    checkShape(f.summary, in);
    return f;
}

RankSummaryFile readRankSummaryFile(const std::string& path) {
    // O_NONBLOCK: a FIFO named like a summary must not hang the open; only a regular file is read
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw RankSummaryError("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    std::vector<uint8_t> bytes;
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool small = regular && uint64_t(st.st_size) <= RankSummaryFile::kMaxFile;
    if (small) bytes.resize(size_t(st.st_size));
    size_t got = 0;
    while (small && got < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n <= 0) break;
        got += size_t(n);
    }
    ::close(fd);
    if (!regular) throw RankSummaryError(path + " is not a regular file");
    if (!small)
        throw RankSummaryError(path + " is not a rank summary: " + std::to_string(st.st_size) +
                               " bytes is too large for one");
    if (got != bytes.size()) throw RankSummaryError("cannot read " + path);
    try {
        return decodeRankSummary(bytes);
    } catch (const RankSummaryError& e) {
        throw RankSummaryError(std::filesystem::path(path).filename().string() + " is " + e.what());
    }
}

std::string rankSummaryName(const std::string& capturePath) {
    constexpr size_t kNameMax = 255; // NAME_MAX of the file systems in use
    const std::string name = std::filesystem::path(capturePath).filename().string();
    const std::string suffix = RankSummaryFile::kSuffix;
    if (name.size() + suffix.size() <= kNameMax) return name + suffix;
    // too long with the suffix: the start of the name and a hash of all of it (stable across builds,
    // so that summarising again replaces the summary rather than adding one beside it)
    uint64_t hash = 0xcbf29ce484222325; // FNV-1a
    for (unsigned char c : name) hash = (hash ^ c) * 0x100000001b3;
    char tail[18];
    std::snprintf(tail, sizeof tail, "-%016llx", static_cast<unsigned long long>(hash));
    return name.substr(0, kNameMax - suffix.size() - 17) + tail + suffix;
}

bool isRankSummaryPath(const std::string& path) {
    const std::string suffix = RankSummaryFile::kSuffix;
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace vs
