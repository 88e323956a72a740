#include "VscapRecords.h"

#include "LineRange.h"
#include "LoadError.h"
#include "MemoryBudget.h"
#include "SnapshotSchema.h"
#include "TimeRange.h"
#include "VscapFormat.h"
#include "util/TerminalText.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>

namespace vs::vscap {

// A bounds-checked cursor over one record's body.
class Records::Body {
  public:
    Body(std::span<const uint8_t> bytes, uint64_t offset)
        : p_(bytes.data()), end_(p_ + bytes.size()), base_(offset) {
        begin_ = p_;
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw LoadError("corrupt .vscap record: " + what, base_ + static_cast<uint64_t>(p_ - begin_));
    }
    // The chunk buffer has kPadding readable bytes after its end, so a varint that starts inside
    // the body can be read without a check per byte; one running past the body fails.
    uint64_t varint() {
        if (p_ >= end_) fail("truncated number");
        uint64_t v = *p_++;
        if (v < 0x80) [[likely]]
            return v;
        v &= 0x7f;
        for (int shift = 7; shift < 70; shift += 7) {
            const uint8_t byte = *p_++;
            v |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) {
                if (p_ > end_) fail("truncated number");
                return v;
            }
        }
        fail("number longer than 64 bits");
    }
    int64_t svarint() { return unzigzag(varint()); }
    uint8_t u8() {
        if (p_ == end_) fail("truncated record");
        return *p_++;
    }
    double f64() {
        double v;
        std::memcpy(&v, take(8).data(), 8);
        return v;
    }
    std::span<const uint8_t> take(uint64_t n) {
        if (n > static_cast<uint64_t>(end_ - p_)) fail("length beyond the record");
        std::span<const uint8_t> s{p_, static_cast<size_t>(n)};
        p_ += n;
        return s;
    }
    std::string_view text(uint64_t n) {
        auto s = take(n);
        return {reinterpret_cast<const char*>(s.data()), s.size()};
    }
    // Runs a column decoder over the remaining bytes and moves past what it read.
    template <class Put> void column(uint64_t n, Put put) {
        const uint8_t* q = varintColumn(p_, end_, n, put);
        if (!q) fail("truncated or overlong number in an event column");
        p_ = q;
    }
    std::string_view rest() { return text(remaining()); }
    uint64_t remaining() const { return static_cast<uint64_t>(end_ - p_); }
    uint64_t count(uint64_t minBytesEach) { // a count that the remaining bytes can hold
        const uint64_t n = varint();
        if (minBytesEach && n > static_cast<uint64_t>(end_ - p_) / minBytesEach)
            fail("count beyond the record");
        return n;
    }

  private:
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* begin_;
    uint64_t base_;
};

// Decodes `n` varints with a local cursor (the hot loop of event decoding) and hands each to `put`.
// Reads past `end` stay within the chunk's padding; running past it is reported after the loop.
template <class Put>
static const uint8_t* varintColumn(const uint8_t* p, const uint8_t* end, uint64_t n, Put put) {
    for (uint64_t i = 0; i < n; ++i) {
        if (p >= end) [[unlikely]]
            return nullptr;
        uint64_t v = *p++;
        if (v >= 0x80) [[unlikely]] {
            v &= 0x7f;
            for (int shift = 7;; shift += 7) {
                const uint8_t byte = *p++;
                v |= uint64_t(byte & 0x7f) << shift;
                if (!(byte & 0x80)) break;
                if (shift >= 63) return nullptr;
            }
        }
        put(i, v);
    }
    return p <= end ? p : nullptr;
}

static constexpr int kMaxRecordDevice = 65535;

static int deviceOrdinal(int64_t v) {
    if (v < -1 || v > kMaxRecordDevice)
        throw LoadError("corrupt .vscap: device ordinal " + std::to_string(v));
    return static_cast<int>(v);
}

Records::Records(Capture& c) : c_(c) {}

void Records::read(std::span<const uint8_t> raw, uint64_t offset) {
    size_t pos = 0;
    while (pos < raw.size()) {
        Body head(raw.subspan(pos), offset + pos);
        const uint64_t kind = head.varint();
        const uint64_t length = head.varint();
        const size_t headBytes = raw.size() - pos - head.rest().size();
        if (length > raw.size() - pos - headBytes) head.fail("record longer than its chunk");
        Body body(raw.subspan(pos + headBytes, length), offset + pos + headBytes);
        record(static_cast<uint32_t>(std::min<uint64_t>(kind, UINT32_MAX)), body);
        pos += headBytes + length;
    }
}

// A bound on what one record other than Events can allocate: the containers and hash nodes it adds
// (a 3-byte String record interns a std::string and a map node; a Segments block of 5 bytes becomes
// a 40-byte SnapshotBlock; a retention node of 5 bytes a 32-byte RetentionNode).
static constexpr uint64_t kRecordOverhead = 96;
static constexpr uint64_t kBytesPerBodyByte = 8;

void Records::overBudget() const {
    if (!bound_) throw LoadError(MemoryBudget::exceededMessage(budget_));
    throw LoadError("the capture's " + MemoryBudget::describe(fileBytes_) + " would expand to more than " +
                    std::to_string(bound_) + " times their size in memory (" +
                    MemoryBudget::describe(budget_) + "), which no recording does: a decompression bomb");
}

void Records::charge(uint64_t otherBytes, uint64_t newEventBytes) {
    if (otherBytes > budget_ || newEventBytes > budget_ ||
        charged_ + eventBytes_ + otherBytes + newEventBytes > budget_)
        overBudget();
    charged_ += otherBytes;
    eventBytes_ += newEventBytes;
}

// Charges the columns of `d` for `events` events before they grow to it.
void Records::growEvents(DeviceTrace& d, uint64_t events) {
    if (events > budget_ / DeviceTrace::kBytesPerEvent) overBudget();
    const uint64_t before = d.columnBytesAt(d.eventCount()), after = d.columnBytesAt(size_t(events));
    charge(0, after - before);
}

void Records::record(uint32_t kind, Body& b) {
    if (partLevel_) b.fail("a record after the Part record in its chunk"); // the writer ends it there
    if (kind != uint32_t(Record::Events)) charge(kRecordOverhead + kBytesPerBodyByte * b.remaining());
    switch (static_cast<Record>(kind)) {
    case Record::String:
        return string(b);
    case Record::Frame:
        return frame(b);
    case Record::Stack:
        return stack(b);
    case Record::Stream:
        if (c_.streams.size() >= kMaxStreams) b.fail("more than " + std::to_string(kMaxStreams) + " streams");
        streams_.push_back(c_.internStream(b.varint()));
        return;
    case Record::Device:
        return device(b);
    case Record::Settings:
        return settings(b);
    case Record::Events:
        return events(b);
    case Record::Annotation:
        return annotation(b, false);
    case Record::Mark:
        return annotation(b, true);
    case Record::Segments:
        return segments(b);
    case Record::EventText:
        return eventText(b);
    case Record::Dropped:
        dropped_ += b.varint();
        return;
    case Record::Meta:
        return meta(b);
    case Record::End:
        ended_ = true;
        return;
    case Record::Reserve: {
        DeviceTrace& d = trace(deviceOrdinal(b.svarint()));
        // A hint: a hostile one is capped by what the file's size makes plausible and by the budget.
        const uint64_t fits = (budget_ - std::min(budget_, charged())) / DeviceTrace::kBytesPerEvent;
        const uint64_t n = std::min({b.varint(), reserveLimit_, d.eventCount() + fits});
        if (n > d.eventCount()) growEvents(d, n), d.reserve(n);
        return;
    }
    case Record::Retention:
        return retention(b);
    case Record::ClockSync:
        return;
    case Record::Tags:
        return tags(b);
    case Record::DriverMemory:
        return driverMemory(b);
    case Record::BlockAnnotation:
        return blockAnnotation(b);
    case Record::Part:
        if (partLevel_) b.fail("a second Part record");
        partLevel_ = b.varint();
        if (partLevel_ != 1) b.fail("unknown Part level " + std::to_string(partLevel_));
        return;
    }
    // An unknown kind comes from a newer writer: skipping it is the compatibility rule.
}

StringId Records::stringId(uint64_t fileId) const {
    if (fileId >= strings_.size())
        throw LoadError("corrupt .vscap: string " + std::to_string(fileId) + " used before it is defined");
    return strings_[fileId];
}

StackId Records::stackId(uint64_t fileId) const {
    if (fileId >= stacks_.size()) [[unlikely]]
        throw LoadError("corrupt .vscap: stack " + std::to_string(fileId) + " used before it is defined");
    return stacks_[fileId];
}

void Records::string(Body& b) {
    strings_.push_back(c_.strings.intern(b.rest()));
}

void Records::frame(Body& b) {
    Frame f;
    f.name = stringId(b.varint());
    f.filename = stringId(b.varint());
    f.line = lineOrUnknown(b.varint(), linesOutOfRange_);
    frames_.push_back(c_.frames.intern(f));
}

void Records::stack(Body& b) {
    const uint64_t n = b.count(1);
    frameScratch_.clear();
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t f = b.varint();
        if (f >= frames_.size()) b.fail("frame used before it is defined");
        frameScratch_.push_back(frames_[f]);
    }
    stacks_.push_back(c_.stacks.intern(frameScratch_));
}

DeviceTrace* Records::existingTrace(int ordinal) {
    for (auto& d : c_.devices)
        if (d.device == ordinal) return &d;
    return nullptr;
}

DeviceTrace& Records::trace(int ordinal) {
    if (DeviceTrace* d = existingTrace(ordinal)) return *d;
    if (c_.devices.size() >= 1024) throw LoadError("corrupt .vscap: more than 1024 devices");
    auto& d = c_.devices.emplace_back();
    d.device = ordinal;
    d.hasFinalSnapshot = false; // until a Segments record arrives
    if (const auto ring = pendingRing_.find(ordinal); ring != pendingRing_.end()) d.ringBuffer = ring->second;
    return d;
}

void Records::device(Body& b) {
    DeviceInfo info;
    info.device = deviceOrdinal(b.svarint());
    info.totalMemory = b.varint();
    info.name = std::string(b.rest());
    c_.deviceInfo.push_back(std::move(info));
}

void Records::meta(Body& b) {
    const auto key = b.text(b.varint());
    const auto value = b.rest();
    if (key == kRingBufferMeta) return ringBuffer(b, value); // the capture's own state, not a fact to list
    c_.meta.emplace_back(std::string(key), std::string(value));
    if (key == "warning") c_.warnings.emplace_back(value); // a recorder's own finding
    if (key == "recorder" && value.substr(0, 15) == "vramscope-cupti") c_.nativeStacks = true;
}

// "ORDINAL overflowed|kept [MAX_ENTRIES]": what a snapshot said of a device's trace ring buffer
// (VscapExport writes it for a converted snapshot; docs/vscap.md), read strictly: numbers are decimal
// digits that fit (sscanf's %llu took "-5" for 18446744073709551611). It creates no device: one that
// no other record names gets no lane; one named later takes the state then.
void Records::ringBuffer(Body& b, std::string_view value) {
    const auto bad = [&](const std::string& why) {
        b.fail("the ring_buffer meta record '" + terminalText(value.substr(0, 60)) +
               "' is not '<ordinal> overflowed|kept [<max entries>]': " + why);
    };
    const auto number = [&](std::string_view word, const char* what, uint64_t max) {
        uint64_t n = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
        if (word.empty() || ec != std::errc() || end != word.data() + word.size() || n > max)
            bad(std::string(what) + " '" + terminalText(word.substr(0, 24)) + "' is not a count up to " +
                std::to_string(max));
        return n;
    };
    std::vector<std::string_view> words;
    for (size_t at = 0; at <= value.size() && words.size() < 4;) {
        const size_t space = std::min(value.find(' ', at), value.size());
        words.push_back(value.substr(at, space - at));
        at = space + 1;
    }
    if (words.size() < 2 || words.size() > 3) bad("it has " + std::to_string(words.size()) + " words");
    const int ordinal = static_cast<int>(number(words[0], "the device ordinal", kMaxRecordDevice));
    const uint64_t maxEntries = words.size() == 3 ? number(words[2], "max entries", UINT64_MAX) : 0;
    if (words[1] != "overflowed" && words[1] != "kept") return; // a newer state: unknown, as unrecorded
    const RingBuffer state = words[1] == "overflowed" ? RingBuffer::Overflowed : RingBuffer::Kept;
    if (DeviceTrace* d = existingTrace(ordinal))
        d->ringBuffer = state;
    else
        pendingRing_[ordinal] = state;
    if (words.size() == 3) c_.settings.traceMaxEntries = maxEntries;
}

void Records::settings(Body& b) {
    auto& s = c_.settings;
    s.present = true;
    s.expandableSegments = b.u8() != 0;
    s.maxSplitSize = b.varint();
    s.maxNonSplitRounding = b.varint();
    s.garbageCollectionThreshold = b.f64();
    for (auto& div : s.roundupPower2Divisions)
        div = static_cast<uint32_t>(std::min<uint64_t>(b.varint(), UINT32_MAX));
    s.allocConf = std::string(b.text(b.varint()));
    const uint64_t n = b.count(2);
    s.raw.clear();
    for (uint64_t i = 0; i < n; ++i) {
        auto k = b.text(b.varint());
        auto v = b.text(b.varint());
        s.raw.emplace_back(std::string(k), std::string(v));
    }
}

void Records::events(Body& b) {
    DeviceTrace& d = trace(deviceOrdinal(b.svarint()));
    const uint64_t n = b.count(6); // action byte + five varints of at least one byte each
    const size_t first = d.eventCount();
    growEvents(d, first + n);
    int64_t t = b.svarint();
    const auto actions = b.take(n);
    d.action.resize(first + n), d.stream.resize(first + n), d.stack.resize(first + n);
    for (uint64_t i = 0; i < n; ++i)
        d.action[first + i] = static_cast<Action>(std::min<uint8_t>(actions[i], uint8_t(Action::Unknown)));
    uint64_t tu = static_cast<uint64_t>(t); // wrapping arithmetic: hostile deltas must not be UB
    uint64_t outside = 0;                   // any time outside 1970..2200 (TimeRange.h), found after the loop
    b.column(n, [&](uint64_t, uint64_t v) {
        tu += static_cast<uint64_t>(unzigzag(v));
        outside |= tu > static_cast<uint64_t>(kMaxPlausibleTimeUs); // a negative time is a huge one here
        d.timeUs.push_back(static_cast<int64_t>(tu));
    });
    if (outside) implausibleTime(b, d, first, t);
    uint64_t a = 0;
    b.column(n, [&](uint64_t, uint64_t v) { d.addr.push_back(a += static_cast<uint64_t>(unzigzag(v))); });
    uint64_t tooBig = 0; // the same plausibility bound as snapshots: sums of sizes stay far from overflow
    b.column(n, [&](uint64_t i, uint64_t v) {
        tooBig |= (v > kMaxPlausibleBytes) & (actions[i] != uint8_t(Action::Oom));
        d.size.push_back(v);
    });
    if (tooBig) b.fail("an event size is larger than any device memory");
    // Ids out of range are remembered and reported after the loop, keeping it branch-light.
    uint64_t bad = 0;
    const uint64_t streamCount = streams_.size(), stackCount = stacks_.size();
    if (n && !streamCount) b.fail("events before any stream is defined");
    StreamId* streams = d.stream.data() + first;
    b.column(n, [&](uint64_t i, uint64_t v) {
        bad |= v >= streamCount;
        streams[i] = streams_[v < streamCount ? v : 0];
    });
    StackId* stacks = d.stack.data() + first;
    b.column(n, [&](uint64_t i, uint64_t v) {
        bad |= v >= stackCount;
        stacks[i] = stacks_[v < stackCount ? v : 0];
    });
    if (bad) b.fail("event names a stream or stack that is not defined");
}

// Names the first event whose time is outside 1970..2200: the record's base time, or one its deltas
// carried out of range (or overflowed).
void Records::implausibleTime(Body& b, const DeviceTrace& d, size_t first, int64_t base) {
    size_t i = first;
    while (i < d.timeUs.size() && plausibleTimeUs(d.timeUs[i])) ++i;
    const std::string where = "event " + std::to_string(i) + " of device " + std::to_string(d.device);
    if (i == first && !plausibleTimeUs(base))
        b.fail(where + ": the Events record's base time_us " + vs::implausibleTime(base));
    b.fail(where + ": time_us " + vs::implausibleTime(d.timeUs[i]) + " (its delta from event " +
           std::to_string(i - 1) + " overflows or leaves the range)");
}

int64_t Records::plausibleTime(Body& b, int64_t t, const char* what) {
    if (!plausibleTimeUs(t)) b.fail(std::string(what) + " time_us " + vs::implausibleTime(t));
    return t;
}

void Records::annotation(Body& b, bool mark) {
    Annotation a;
    a.device = deviceOrdinal(b.svarint());
    a.timeUs = plausibleTime(b, b.svarint(), mark ? "a mark's" : "an annotation's");
    a.start = mark || b.u8() == 0;
    a.name = stringId(b.varint());
    if (mark && b.remaining()) a.value = b.svarint(); // a step number, a batch size (OomCause reads it)
    c_.annotations.push_back(a);
}

void Records::retention(Body& b) {
    if (b.varint() != 1) return; // a newer layout of this record: skip it like an unknown kind
    RetentionGraph g;
    g.device = deviceOrdinal(b.svarint());
    g.timeUs = plausibleTime(b, b.svarint(), "a retention graph's");
    g.trigger = stringId(b.varint());
    g.truncated = b.varint() & 1;
    g.objectsScanned = b.varint();
    g.millis = static_cast<uint32_t>(std::min<uint64_t>(b.varint(), UINT32_MAX));
    const uint64_t n = b.count(5);
    g.nodes.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
        RetentionNode node;
        const uint8_t kind = b.u8();
        node.kind =
            (kind <= 3 || (kind >= 10 && kind <= 13)) ? RetentionNodeKind(kind) : RetentionNodeKind::Object;
        node.type = stringId(b.varint()), node.label = stringId(b.varint());
        node.gpuBytes = b.varint(), node.address = b.varint();
        if (node.gpuBytes > kMaxPlausibleBytes) b.fail("retention block larger than any device memory");
        g.nodes.push_back(node);
    }
    const uint64_t m = b.count(4);
    g.edges.reserve(m);
    for (uint64_t i = 0; i < m; ++i) {
        RetentionEdge e;
        const uint64_t src = b.varint(), dst = b.varint();
        if (src >= n || dst >= n) b.fail("retention edge names a node that does not exist");
        e.src = static_cast<uint32_t>(src), e.dst = static_cast<uint32_t>(dst);
        const uint8_t kind = b.u8();
        e.kind = kind <= 6 ? RetentionEdgeKind(kind) : RetentionEdgeKind::Ref;
        e.label = stringId(b.varint());
        g.edges.push_back(e);
    }
    c_.retention.push_back(std::move(g));
}

void Records::eventText(Body& b) {
    DeviceTrace& d = trace(deviceOrdinal(b.svarint()));
    const uint64_t index = b.varint();
    const uint8_t kind = b.u8();
    const StringId text = stringId(b.varint());
    if (index >= UINT32_MAX) b.fail("event index out of range");
    (kind == 0 ? d.compileContext : d.userMetadata).emplace_back(static_cast<uint32_t>(index), text);
}

void Records::blockAnnotation(Body& b) {
    BlockAnnotation a;
    a.device = deviceOrdinal(b.svarint());
    a.timeUs = plausibleTime(b, b.svarint(), "a block annotation's");
    a.address = b.varint();
    a.text = stringId(b.varint());
    a.stack = stackId(b.varint());
    c_.blockAnnotations.push_back(a);
}

void Records::segments(Body& b) {
    DeviceTrace& d = trace(deviceOrdinal(b.svarint()));
    const uint64_t n = b.count(9);
    d.finalSegments.clear();
    d.hasFinalSnapshot = true;
    for (uint64_t i = 0; i < n; ++i) {
        SnapshotSegment s;
        s.address = b.varint(), s.totalSize = b.varint(), s.stream = b.varint();
        if (s.totalSize > kMaxPlausibleBytes) b.fail("segment size larger than any device memory");
        const uint8_t flags = b.u8();
        s.expandable = flags & 1, s.smallPool = flags & 2;
        s.poolId[0] = b.varint(), s.poolId[1] = b.varint();
        s.stack = stackId(b.varint());
        const uint64_t blocks = b.count(5);
        for (uint64_t k = 0; k < blocks; ++k) {
            SnapshotBlock blk;
            blk.address = s.address + b.varint(), blk.size = b.varint(), blk.requestedSize = b.varint();
            if (blk.size > s.totalSize || blk.requestedSize > kMaxPlausibleBytes)
                b.fail("a block is larger than its segment");
            blk.state =
                static_cast<BlockState>(std::min<uint8_t>(b.u8(), uint8_t(BlockState::ActivePendingFree)));
            blk.stack = stackId(b.varint());
            s.blocks.push_back(blk);
        }
        d.finalSegments.push_back(std::move(s));
    }
    std::sort(d.finalSegments.begin(), d.finalSegments.end(),
              [](const auto& x, const auto& y) { return x.address < y.address; });
}

// Tags and samples come in time order from one writer thread; a reader keeps them as they come.
void Records::tags(Body& b) {
    const int device = deviceOrdinal(b.svarint());
    const int64_t timeUs = plausibleTime(b, b.svarint(), "a tag record's");
    const uint64_t n = b.count(2); // an address varint and a category byte at least
    for (uint64_t i = 0; i < n; ++i) {
        const uint64_t address = b.varint();
        const uint8_t kind = b.u8();
        if (kind < uint8_t(TagKind::Parameter) || kind > uint8_t(TagKind::Input)) continue; // a newer kind
        c_.tags.push_back({device, timeUs, address, TagKind(kind)});
    }
}

void Records::driverMemory(Body& b) {
    DriverSample s;
    s.device = deviceOrdinal(b.svarint());
    s.timeUs = plausibleTime(b, b.svarint(), "a driver memory sample's");
    s.deviceUsed = b.varint();
    s.processUsed = b.varint();
    c_.driverSamples.push_back(s);
}

} // namespace vs::vscap
