// One .vscap encoder: tests/golden/vscap holds what core's codec (io/VscapEncode*.h, VscapEvents.h,
// VscapWriter) writes for fixed inputs, one file per case. The Python recorder's tracker compiles the
// same codec; its interner (_interner.h, compiled here without torch) is checked below, its pure-Python
// fallback in capture/python/tests/test_vscap_golden.py (same inputs, written again there).
// After a deliberate layout change: scripts/regen-vscap-golden.sh BUILD_DIR rewrites the files.
#include "io/VscapEncodeState.h"
#include "io/VscapEvents.h"
#include "io/VscapReader.h"
#include "io/VscapWriter.h"

#include "_interner.h"
#include "_stack_cache.h"

#include <QFile>
#include <QtTest>

#include <map>
#include <set>
#include <zlib.h>

using namespace vs;
using namespace vs::vscap;

class TestVscapCodec : public QObject {
    Q_OBJECT
  private slots:
    void coreCodecMatchesGolden_data();
    void coreCodecMatchesGolden();
    void trackerEncoderMatchesGolden();
    void goldenRecordsRead();
    void trackerStackCacheTellsStacksApart();
    void trackerStackKeysSpreadNearIdenticalStacks();
    void trackerInternerWritesNoLineAsZero();
};

namespace {

// The inputs. test_vscap_golden.py spells the same ones in Python; change both together.
constexpr int64_t kT0 = 1'700'000'000'000'000; // µs
constexpr uint64_t kStreamA = 0x7f0000001000, kAddr = 0x7f0000000000;
const uint64_t kStack1[] = {0, 1}; // [a.py:10 f, b.py:70000 g]
const uint64_t kStack2[] = {1};
const uint64_t kStack3[] = {2}; // [a.py:11 f]

std::string tables() { // the records of interning stacks, a string and streams in that order
    std::string s;
    for (const char* t : {"f", "a.py"}) s += recordBytes(StringRecord{t});
    s += recordBytes(FrameRecord{1, 2, 10});
    for (const char* t : {"g", "b.py"}) s += recordBytes(StringRecord{t});
    s += recordBytes(FrameRecord{3, 4, 70000});
    s += recordBytes(StackRecord{kStack1}) + recordBytes(StackRecord{kStack2});
    s += recordBytes(StringRecord{"h\u00e9llo \u2713"});
    s += recordBytes(StreamRecord{kStreamA}) + recordBytes(StreamRecord{0});
    s += recordBytes(FrameRecord{1, 2, 11}) + recordBytes(StackRecord{kStack3});
    return s;
}

// Device 1's events; stream 0 is kStreamA, 1 is stream 0; stack 1 is kStack1.
struct RawEvent {
    int64_t timeUs;
    uint64_t addr, size;
    uint8_t action;
    uint64_t rawStream, stream, stack;
};
const RawEvent kEvents[] = {
    {kT0, kAddr + 0x200000, 512, 0, kStreamA, 0, 1},
    {kT0 + 5, kAddr, 2 << 20, 3, 0, 1, 0},
    {kT0 + 4, kAddr + 0x200000, 512, 1, kStreamA, 0, 1}, // time and address go back
    {kT0 + 9, kAddr + 0x200000, 512, 2, kStreamA, 0, 0},
    {kT0 + 9, kAddr, 2 << 20, 4, 0, 1, 0},
    {kT0 + 20, kAddr + (1ull << 30), 1 << 21, 5, 0, 1, 1},
    {kT0 + 21, kAddr + (1ull << 30), 1 << 21, 6, 0, 1, 0},
    {kT0 + 30, 0, 0, 7, 0, 1, 0},
    {kT0 + 100, 1234567, 1ull << 30, 8, 0, 1, 1}, // oom: the address is the free device memory
    {kT0 + 101, 0, 0, 9, 0, 1, 0},                // an action this version does not know
};

std::string events() {
    ByteWriter body, out;
    writeEventsBody(body, 1, std::size(kEvents), [](size_t i) {
        const RawEvent& e = kEvents[i];
        return EventFields{e.timeUs, e.addr, e.size, Action(e.action), e.stream, e.stack};
    });
    appendRecord(out, Record::Events, body.str());
    return out.str();
}

std::string segments() {
    const BlockFields first[] = {{0, 1024, 1000, 1, 2}, {0x400, (2 << 20) - 1024, (2 << 20) - 1024, 0, 0}};
    const BlockFields second[] = {{0, 512, 512, 2, 0}};
    const SegmentFields segs[] = {{kAddr, 2 << 20, 0, false, false, 0, 0, 1, first},
                                  {kAddr + 0x400000, 20 << 20, kStreamA, true, true, 1, 2, 0, second},
                                  {kAddr + 0x2000000, 2 << 20, 0, false, false, 0, 0, 0, {}}};
    return recordBytes(SegmentsRecord{1, segs}); // the device of the events
}

std::string settings() {
    std::array<uint32_t, 16> div{};
    div[0] = 4, div[8] = 8;
    const std::vector<std::pair<std::string, std::string>> raw = {
        {"expandable_segments", "True"},
        {"max_split_size", "-1"},
        {"max_non_split_rounding", "1048576"},
        {"garbage_collection_threshold", "0.6"},
        {"roundup_power2_divisions", "{1: 4, 256: 8}"},
        {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
    return recordBytes(SettingsRecord{true, UINT64_MAX, 1 << 20, 0.6, div, "expandable_segments:True", raw});
}

std::string retention() { // strings: oom 1, Tensor 2, t 3, block 4, .x 5
    const RetentionNodeFields nodes[] = {{2, 4, 0, 1 << 20, kAddr}, {1, 2, 3, 0, 0}, {0, 2, 0, 0, 0}};
    const RetentionEdgeFields edges[] = {{1, 0, 5, 0}, {2, 1, 6, 5}};
    return recordBytes(RetentionRecord{0, kT0, 1, true, 1234, 250, nodes, edges});
}

std::string container() { // the header and one uncompressed chunk
    std::string out;
    Writer w([&](std::string_view s) { out.append(s); }, Writer::Options{Codec::None, 0, 1 << 20, 1 << 16});
    w.write(MetaRecord{"recorder", "test"});
    w.finish();
    return out;
}

// Issue 17's records: tags, a driver sample, the Part that starts the CUDA level.
std::string levels() {
    const std::pair<uint64_t, uint8_t> tags[] = {
        {0x7F0000000000, 1}, {0x7F0000200000, 2}, {0x7F0000400000, 3}, {0x7F0000600000, 4}};
    return recordBytes(TagsRecord{0, kT0 + 40, tags}) +
           recordBytes(DriverMemoryRecord{0, kT0 + 50, 3313893376, 2373976064}) +
           recordBytes(DriverMemoryRecord{1, kT0 + 60, 1 << 20, 0}) + recordBytes(PartRecord{});
}

const std::map<std::string, std::string>& cases() {
    static const std::map<std::string, std::string> all = {
        {"tables", tables()},
        {"events", events()},
        {"device", recordBytes(DeviceRecord{0, 150754820096, "NVIDIA H200"}) +
                       recordBytes(DeviceRecord{3, 0, "GPU \u00e9"})},
        {"meta", recordBytes(MetaRecord{"recorder", "vramscope-python"}) +
                     recordBytes(MetaRecord{"argv", "train.py --lr=1e-3 \u2713"}) +
                     recordBytes(MetaRecord{"empty", ""})},
        {"marks", recordBytes(AnnotationRecord{0, kT0, true, 3}) +
                      recordBytes(AnnotationRecord{0, kT0 + 10, false, 3}) +
                      recordBytes(MarkRecord{1, kT0 + 20, 4, 42}) +
                      recordBytes(MarkRecord{1, kT0 + 30, 4, -7})},
        {"segments", segments()},
        {"settings", settings()},
        {"retention", retention()},
        {"small", recordBytes(DroppedRecord{12345}) + recordBytes(EndRecord{})},
        {"levels", levels()},
        {"container", container()},
    };
    return all;
}

QString goldenPath(const std::string& name) {
    return QStringLiteral(VRAMSCOPE_GOLDEN_DIR "/%1.bin").arg(QString::fromStdString(name));
}

std::string readGolden(const std::string& name) {
    QFile f(goldenPath(name));
    if (!f.open(QIODevice::ReadOnly)) return "<missing " + name + ".bin>";
    const QByteArray b = f.readAll();
    return std::string(b.constData(), size_t(b.size()));
}

QByteArray hex(const std::string& s) {
    return QByteArray(s.data(), qsizetype(s.size())).toHex(' ');
}

} // namespace

void TestVscapCodec::coreCodecMatchesGolden_data() {
    QTest::addColumn<QString>("name");
    for (const auto& [name, bytes] : cases()) QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

// VRAMSCOPE_WRITE_GOLDEN=1 writes the files instead of checking them (scripts/regen-vscap-golden.sh).
void TestVscapCodec::coreCodecMatchesGolden() {
    QFETCH(QString, name);
    const std::string& bytes = cases().at(name.toStdString());
    if (qEnvironmentVariableIsSet("VRAMSCOPE_WRITE_GOLDEN")) {
        QFile f(goldenPath(name.toStdString()));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(bytes.data(), qint64(bytes.size())), qint64(bytes.size()));
        return;
    }
    QCOMPARE(hex(bytes), hex(readGolden(name.toStdString())));
}

// The torch extension's interner and Events encoder, fed what its drain() would see.
void TestVscapCodec::trackerEncoderMatchesGolden() {
    vramscope_tracker::Interner in;
    in.stack({in.frame("a.py", "f", 10), in.frame("b.py", "g", 70000)});
    in.stack({in.frame("b.py", "g", 70000)});
    in.stack({});
    in.stack({in.frame("a.py", "f", 10), in.frame("b.py", "g", 70000)});
    in.string("h\u00e9llo \u2713");
    in.stream(kStreamA), in.stream(0), in.stream(kStreamA);
    in.stack({in.frame("a.py", "f", 11)});
    QCOMPARE(hex(in.pending), hex(readGolden("tables")));
    in.pending.clear();

    std::string out;
    vramscope_tracker::encodeEvents(out, in, 1, std::size(kEvents), [](size_t i) {
        const RawEvent& e = kEvents[i];
        return vramscope_tracker::EventFields{e.timeUs, e.addr, e.size, e.action, e.rawStream, e.stack};
    });
    QCOMPARE(hex(out), hex(readGolden("events")));
}

// The golden records are a valid file to the reader (the spec's other half), in a dependency order.
void TestVscapCodec::goldenRecordsRead() {
    std::string raw;
    for (const char* name :
         {"tables", "device", "meta", "settings", "events", "marks", "retention", "segments"})
        raw += readGolden(name);
    raw += recordBytes(EndRecord{});
    ByteWriter file; // the header and one uncompressed chunk, framed by hand around the golden bytes
    file.raw(kMagic, sizeof kMagic), file.u16(kVersionMajor), file.u16(kVersionMinor), file.u32(0);
    file.raw(kChunkMagic, sizeof kChunkMagic), file.u8(uint8_t(Codec::None)), file.u8(0), file.u8(0),
        file.u8(0);
    file.u32(uint32_t(raw.size())), file.u32(uint32_t(raw.size()));
    file.u32(uint32_t(crc32(0, reinterpret_cast<const Bytef*>(raw.data()), uInt(raw.size()))));
    file.bytes(raw);
    const auto c = loadVscapBytes({reinterpret_cast<const uint8_t*>(file.str().data()), file.size()});
    QVERIFY(c);
    QVERIFY2(c->warnings.empty(), c->warnings.empty() ? "" : c->warnings.front().c_str());
    QCOMPARE(c->deviceInfo.size(), size_t(2));
    size_t events = 0;
    for (const auto& d : c->devices) events += d.device == 1 ? d.eventCount() : 0;
    QCOMPARE(events, std::size(kEvents));
    QCOMPARE(c->annotations.size(), size_t(4)); // marks read as annotations, with their values
    std::vector<int64_t> values;
    for (const auto& a : c->annotations)
        if (a.value != Annotation::kNoMarkValue) values.push_back(a.value);
    QCOMPARE(values, (std::vector<int64_t>{42, -7}));
    QCOMPARE(c->retention.size(), size_t(1));
}

// The tracker's hook resolves a raw Python stack (code object, instruction offset per frame) to a
// stack id through this cache: a stack that differs in any frame, in an offset or in its depth is
// another stack, id 0 (the empty stack's) is an id like any other, and adding twice keeps the first.
void TestVscapCodec::trackerStackCacheTellsStacksApart() {
    using vramscope_tracker::RawFrame;
    using vramscope_tracker::StackCache;
    int codeA = 0, codeB = 0;
    const std::vector<RawFrame> outer{{&codeA, 10}, {&codeB, 4}};
    const std::vector<RawFrame> otherOffset{{&codeA, 12}, {&codeB, 4}};
    const std::vector<RawFrame> deeper{{&codeA, 10}, {&codeB, 4}, {&codeB, 4}};
    const std::vector<RawFrame> empty;
    auto at = [](const std::vector<RawFrame>& v) { return [&v](size_t i) { return v[i]; }; };
    auto key = [&](const std::vector<RawFrame>& v) { return StackCache::hash(v.size(), at(v)); };
    StackCache cache;
    QCOMPARE(cache.find(key(outer), outer.size(), at(outer)), StackCache::missing);
    QVERIFY(cache.add(key(outer), outer.size(), at(outer), 7));
    QVERIFY(cache.add(key(empty), 0, at(empty), 0));
    QVERIFY(!cache.add(key(outer), outer.size(), at(outer), 9));
    QCOMPARE(cache.find(key(outer), outer.size(), at(outer)), uint64_t(7));
    QCOMPARE(cache.find(key(empty), 0, at(empty)), uint64_t(0));
    QCOMPARE(cache.find(key(otherOffset), otherOffset.size(), at(otherOffset)), StackCache::missing);
    QCOMPARE(cache.find(key(deeper), deeper.size(), at(deeper)), StackCache::missing);
    // a key that collides (the caller's hash is only a hint) still compares the frames
    QCOMPARE(cache.find(key(outer), otherOffset.size(), at(otherOffset)), StackCache::missing);
    QCOMPARE(cache.size(), size_t(2));
    cache.clear();
    QCOMPARE(cache.find(key(outer), outer.size(), at(outer)), StackCache::missing);
}

// The key only spreads the cache's buckets (equal keys are confirmed frame by frame), but stacks
// that differ in one frame's offset or code object, in the order of two frames or in depth must
// not share keys, or every event of such a program would walk one long bucket. (A key whose
// per-frame step never carried high bits down, the offset folded in above the address, gave 25
// shared keys here.)
void TestVscapCodec::trackerStackKeysSpreadNearIdenticalStacks() {
    using vramscope_tracker::RawFrame;
    using vramscope_tracker::StackCache;
    uint64_t seed = 1;
    auto next = [&seed] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
    std::vector<RawFrame> base(40);
    for (auto& f : base) // code objects 16-byte aligned in a 16 MiB range, even offsets, as CPython's
        f = {reinterpret_cast<const void*>(0x7f0000000000ull + (next() >> 40) * 16),
             int((next() >> 52) % 4000) * 2};
    std::set<uint64_t> keys;
    size_t stacks = 0;
    auto add = [&](const std::vector<RawFrame>& v, size_t n) {
        keys.insert(StackCache::hash(n, [&v](size_t i) { return v[i]; }));
        ++stacks;
    };
    for (size_t i = 0; i < base.size(); ++i)
        for (int d = 2; d <= 2000; d += 2) {
            auto offset = base, code = base;
            offset[i].lasti += d;
            code[i].code = static_cast<const char*>(code[i].code) + 16 * d;
            add(offset, offset.size()), add(code, code.size());
        }
    for (size_t i = 0; i + 1 < base.size(); ++i) {
        auto swapped = base;
        std::swap(swapped[i], swapped[i + 1]);
        add(swapped, swapped.size());
    }
    for (size_t n = 2; n <= base.size(); ++n) add(base, n);                      // the outer n frames
    for (size_t n = 1; n <= 100; ++n) add(std::vector<RawFrame>(n, base[0]), n); // recursion
    QCOMPARE(keys.size(), stacks);
}

// PyCode_Addr2Line's -1 (an instruction without a line) reaches the tracker's interner wrapped to
// 2^64-1 by PyTorch's symbolization; the records written from Python clamp it to 0 (codec.py,
// _codec.cpp), so the interner does the same: one frame, line 0, whichever path wrote it.
void TestVscapCodec::trackerInternerWritesNoLineAsZero() {
    vramscope_tracker::Interner in;
    const uint64_t wrapped = in.frame("model.py", "forward", UINT64_MAX);
    QCOMPARE(in.frame("model.py", "forward", 0), wrapped);
    QVERIFY(in.frame("model.py", "forward", 12) != wrapped);
    QVERIFY(in.frame("model.py", "forward", uint64_t(INT64_MAX)) != wrapped); // lines up to int64 are kept
}

QTEST_GUILESS_MAIN(TestVscapCodec)
#include "tst_vscap_codec.moc"
