// The snapshot reader accepts what PyTorch writes (protocols 2-5, memo sharing, gzip, zstd) and
// rejects everything else with a LoadError that names what is wrong and where, never executing
// anything, never crashing.
#include "PickleBuilder.h"
#include "TestData.h"
#include "io/InputBuffer.h"
#include "io/LoadError.h"
#include "io/LoadMeter.h"
#include "io/PickleMemo.h"
#include "io/SnapshotLoader.h"
#include "model/FrameTable.h"

#include <QtTest>
#include <algorithm>

#include <zlib.h>
#include <zstd.h>

using namespace vs;
using vs::test::PickleBuilder;

class TestPickleReader : public QObject {
    Q_OBJECT
  private slots:
    void minimalSnapshotProtocols_data();
    void minimalSnapshotProtocols();
    void sharedFrameListIsOneStack();
    void extendingAStackIsInterningTheWholeList();
    void cxxPicklerShape();
    void bigIntegersAreClampedWithWarning();
    void rejects_data();
    void rejects();
    void everyTruncationOfARealSampleIsRejected();
    void memoScanInWindowsMarksWhatOneScanMarks();
    void corruptCompressedInputIsRejected();
    void missingFileIsRejected();
};

namespace {

// {'segments': [], 'device_traces': [[entry, entry]], 'allocator_settings': {...}} with two
// entries sharing one frames list through the memo, as Python's pickler writes it.
PickleBuilder snapshot(uint8_t protocol) {
    PickleBuilder p;
    p.proto(protocol).emptyDict().mark();                         // memo 0: top dict
    p.str("segments").emptyList();                                // 1, 2
    p.str("device_traces").emptyList().mark().emptyList().mark(); // 3, 4, 5
    // entry 1: alloc 513 bytes at 4096 with a one-frame stack
    p.emptyDict().mark();                       // 6
    p.str("action").str("alloc");               // 7, 8
    p.str("addr").integer(1 << 20);             // 9
    p.str("size").integer(513);                 // 10
    p.str("stream").integer(0);                 // 11
    p.str("time_us").integer(1700000000000000); // 12
    p.str("frames").emptyList().mark();         // 13, 14
    p.emptyDict()
        .mark()
        .str("name")
        .str("f")
        .str("filename")
        .str("x.py")
        .str("line")
        .integer(7)
        .setitems(); // 15..20
    p.appends().setitems();
    // entry 2: free_requested referencing the same frames list (memo 14) and the same keys
    p.emptyDict().mark().get(7).str("free_requested").get(9).integer(1 << 20).get(10).integer(513);
    p.get(11).integer(0).get(12).integer(1700000000000001).get(13).get(14).setitems();
    p.appends().appends(); // entries into the device list, the device list into device_traces
    p.str("allocator_settings").emptyDict().mark().str("max_split_size").integer(-1);
    p.str("roundup_power2_divisions").emptyDict().mark().str("1").integer(4).str("2").integer(8).setitems();
    p.setitems();
    p.setitems().stop();
    return p;
}

std::unique_ptr<Capture> load(const std::vector<uint8_t>& b) {
    return loadSnapshotBytes(b);
}

} // namespace

void TestPickleReader::minimalSnapshotProtocols_data() {
    QTest::addColumn<int>("protocol");
    for (int v : {2, 3, 4, 5}) QTest::newRow(qPrintable(QString("protocol %1").arg(v))) << v;
}

void TestPickleReader::minimalSnapshotProtocols() {
    QFETCH(int, protocol);
    auto c = load(snapshot(static_cast<uint8_t>(protocol)).bytes);
    QCOMPARE(c->devices.size(), size_t(1));
    const DeviceTrace& t = c->devices[0];
    QCOMPARE(t.eventCount(), size_t(2));
    QCOMPARE(t.action[0], Action::Alloc);
    QCOMPARE(t.action[1], Action::FreeRequested);
    QCOMPARE(t.size[0], uint64_t(513));
    QCOMPARE(t.addr[1], uint64_t(1) << 20);
    QCOMPARE(t.timeUs[1], int64_t(1700000000000001));
    QVERIFY(c->settings.present);
    QCOMPARE(c->settings.maxSplitSize, UINT64_MAX);
    QCOMPARE(c->settings.roundupPower2Divisions[0], 4u);
    QCOMPARE(c->settings.roundupPower2Divisions[1], 8u);
    // shown with its items, not as "dict" (Capture Properties)
    const auto raw = std::find_if(c->settings.raw.begin(), c->settings.raw.end(),
                                  [](const auto& kv) { return kv.first == "roundup_power2_divisions"; });
    QVERIFY(raw != c->settings.raw.end());
    QCOMPARE(raw->second, std::string("{1: 4, 2: 8}"));
}

void TestPickleReader::sharedFrameListIsOneStack() {
    auto c = load(snapshot(4).bytes);
    const DeviceTrace& t = c->devices[0];
    QCOMPARE(t.stack[0], t.stack[1]);
    QVERIFY(t.stack[0].value != 0);
    auto frames = c->stacks.frames(t.stack[0]);
    QCOMPARE(frames.size(), size_t(1));
    QCOMPARE(c->strings.text(c->frames[frames[0]].filename), std::string_view("x.py"));
    QCOMPARE(c->frames[frames[0]].line, 7u);
}

// A frame list appended to batch by batch (Python writes APPENDS of up to 1000 items) is interned
// after each batch by StackTable::extend, which must give the ids and the table that interning
// every whole list gives: lists extended in turn, again with the same frames, and from other stacks.
void TestPickleReader::extendingAStackIsInterningTheWholeList() {
    StackTable byExtend, byIntern;
    uint32_t seed = 1;
    auto next = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) % 4; };
    std::vector<std::vector<FrameId>> lists(6); // the whole lists so far
    std::vector<StackId> ids(6, StackId{0});
    for (int step = 0; step < 3000; ++step) {
        const size_t l = step < 1500 ? next() % 2 : next() + 2; // two in turn, then four others
        if (next() == 0 && lists[l].size() > 40) lists[l].clear(), ids[l] = StackId{0}; // a fresh list
        std::vector<FrameId> tail(1 + next());
        for (auto& f : tail) f = FrameId{next()};
        lists[l].insert(lists[l].end(), tail.begin(), tail.end());
        ids[l] = byExtend.extend(ids[l], tail);
        QCOMPARE(ids[l], byIntern.intern(lists[l]));
        QCOMPARE(byExtend.size(), byIntern.size());
        const auto got = byExtend.frames(ids[l]);
        QVERIFY(std::equal(got.begin(), got.end(), lists[l].begin(), lists[l].end()));
    }
    for (size_t i = 0; i < byIntern.size(); ++i) {
        const auto a = byExtend.frames(StackId(uint32_t(i))), b = byIntern.frames(StackId(uint32_t(i)));
        QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    }
}

void TestPickleReader::cxxPicklerShape() {
    // PyTorch's C++ pickler: protocol 2, no FRAME, BINPUT memo, DICT via MARK+SETITEMS, 8-byte LONG1.
    PickleBuilder p;
    p.proto(2).op('}').op('q').op(0).mark();
    p.op('X').u32(8).raw("segments", 8).op('q').op(1).op(']').op('q').op(2);
    p.op('X').u32(13).raw("device_traces", 13).op(']').mark().op(']').mark();
    p.op('}').mark().op('X').u32(6).raw("action", 6).op('X').u32(13).raw("segment_alloc", 13);
    p.op('X').u32(4).raw("addr", 4).integer(int64_t(1) << 40).op('X').u32(4).raw("size", 4).integer(2 << 20);
    p.op('X').u32(7).raw("time_us", 7).integer(5).setitems();
    p.appends().appends().setitems().stop();
    auto c = load(p.bytes);
    QCOMPARE(c->devices.at(0).eventCount(), size_t(1));
    QCOMPARE(c->devices[0].action[0], Action::SegmentAlloc);
    QCOMPARE(c->devices[0].addr[0], uint64_t(1) << 40);
}

void TestPickleReader::bigIntegersAreClampedWithWarning() {
    // A buggy path once produced 2**64-1 as an address, pickled as a 9-byte LONG1.
    PickleBuilder p;
    p.proto(4).emptyDict().mark().str("device_traces").emptyList().mark().emptyList().mark();
    p.emptyDict().mark().str("action").str("alloc").str("addr");
    const uint8_t big[9] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
    p.op(0x8a).op(9).raw(big, 9);
    QVERIFY(load(PickleBuilder(p).setitems().appends().appends().setitems().stop().bytes)->warnings.empty());
    auto exact = load(PickleBuilder(p).setitems().appends().appends().setitems().stop().bytes);
    QCOMPARE(exact->devices[0].addr[0], UINT64_MAX); // fits in 64 unsigned bits: exact, no warning
    // A stream handle of 2**72 + 5 keeps its low 64 bits (a size that wide is refused instead:
    // tst_analysis_hostile, sizesPast63PrintAsWritten).
    const uint8_t huge[10] = {5, 0, 0, 0, 0, 0, 0, 0, 0, 1}; // 2**72 + 5
    p.str("stream").op(0x8a).op(10).raw(huge, 10).setitems().appends().appends().setitems().stop();
    auto clamped = load(p.bytes);
    QCOMPARE(clamped->warnings.size(), size_t(1));
    QVERIFY(clamped->warnings[0].find("64 bits") != std::string::npos);
}

void TestPickleReader::rejects_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("message");
    auto bytes = [](const PickleBuilder& p) {
        return QByteArray(reinterpret_cast<const char*>(p.bytes.data()), qsizetype(p.bytes.size()));
    };
    QTest::newRow("empty") << QByteArray() << "empty";
    QTest::newRow("text") << QByteArray("hello world\n") << "not a pickle";
    QTest::newRow("json") << QByteArray("{\"segments\": []}") << "JSON";
    QTest::newRow("protocol 6") << bytes(PickleBuilder().proto(6)) << "unsupported pickle protocol 6";
    QTest::newRow("protocol 1") << bytes(PickleBuilder().proto(1)) << "unsupported pickle protocol 1";
    QTest::newRow("GLOBAL os.system")
        << bytes(PickleBuilder().proto(2).op('c').raw("os\nsystem\n", 10).stop())
        << "refusing opcode GLOBAL: it would import or call Python code, which a PyTorch memory snapshot "
           "never contains at byte 2";
    QTest::newRow("STACK_GLOBAL") << bytes(PickleBuilder().proto(4).str("os").str("system").op(0x93))
                                  << "refusing opcode STACK_GLOBAL";
    QTest::newRow("REDUCE") << bytes(PickleBuilder().proto(4).emptyList().op('R'))
                            << "refusing opcode REDUCE: it would import or call Python code, which a PyTorch "
                               "memory snapshot never contains at byte 4";
    QTest::newRow("BUILD") << bytes(PickleBuilder().proto(4).emptyDict().op('b')) << "refusing opcode BUILD";
    QTest::newRow("bytes opcode") << bytes(PickleBuilder().proto(4).op('C').op(1).op('x').stop())
                                  << "unsupported pickle opcode 0x43 (SHORT_BINBYTES)";
    QTest::newRow("not an opcode") << bytes(PickleBuilder().proto(4).op(0xff)) << "0xff";
    QTest::newRow("absurd string length") << bytes(PickleBuilder().proto(4).op('X').u32(0xfffffff0u))
                                          << "truncated pickle: needs 4294967280 more bytes";
    QTest::newRow("memo get never stored")
        << bytes(PickleBuilder().proto(4).get(5).stop()) << "memo index 5 was never stored";
    QTest::newRow("memo put far away")
        << bytes(PickleBuilder().proto(2).emptyList().op('r').u32(0xffffff00u).stop())
        << "memo index 4294967040 is out of range";
    QTest::newRow("list of ints")
        << bytes(PickleBuilder().proto(4).emptyList().mark().integer(1).integer(2).appends().stop())
        << "not a PyTorch memory snapshot: a segment is not a dict";
    QTest::newRow("int") << bytes(PickleBuilder().proto(4).integer(3).stop())
                         << "not a PyTorch memory snapshot";
    QTest::newRow("dict without keys")
        << bytes(PickleBuilder().proto(4).emptyDict().mark().str("a").integer(1).setitems().stop())
        << "neither 'segments' nor 'device_traces'";
    QTest::newRow("append to a dict")
        << bytes(PickleBuilder().proto(4).emptyDict().integer(1).op('a').stop()) << "not a list";
    QTest::newRow("stack underflow") << bytes(PickleBuilder().proto(4).op('s')) << "stack underflow";
    QTest::newRow("appends without mark")
        << bytes(PickleBuilder().proto(4).emptyList().appends()) << "MARK expected";
    QTest::newRow("stop on empty stack")
        << bytes(PickleBuilder().proto(4).stop()) << "STOP with an empty stack";
    QTest::newRow("entry field not int") << bytes(PickleBuilder()
                                                      .proto(4)
                                                      .emptyDict()
                                                      .mark()
                                                      .str("action")
                                                      .str("alloc")
                                                      .str("addr")
                                                      .str("x")
                                                      .setitems()
                                                      .stop())
                                         << "trace entry field 'addr' is not an integer";
    QTest::newRow("no STOP") << bytes(PickleBuilder().proto(4).emptyDict()) << "truncated pickle";
}

void TestPickleReader::rejects() {
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    const std::vector<uint8_t> b(input.begin(), input.end());
    try {
        load(b);
        QFAIL("accepted bad input");
    } catch (const LoadError& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
    }
}

// The memo scan reads a mapped file in windows of 1 MiB, so opcodes and strings cross window edges:
// every window size marks the same slots as one scan of the whole input, and a real snapshot
// reads back far fewer slots than it memoizes (what the scan saves).
void TestPickleReader::memoScanInWindowsMarksWhatOneScanMarks() {
    const auto file = vs::test::readFile(vs::test::samplePath("stacks_all"));
    const auto input = vs::InputBuffer::fromMemory(file); // decompressed if it is compressed
    const std::span<const uint8_t> whole = input.bytes();
    QVERIFY(whole.size() > 10000);
    const auto scanIn = [&](size_t window) {
        vs::LoadMeter meter(1ull << 32);
        vs::pickle::PickleMemo::Scan scan(meter, whole.size());
        for (uint64_t at = 0, step = 1; at < whole.size() && step; at += step)
            step = scan.feed(whole.subspan(at, std::min<size_t>(window, whole.size() - at)), at);
        return scan.finish();
    };
    auto one = scanIn(whole.size());
    size_t memoized = 0; // MEMOIZE opcodes, an upper bound (string bytes may hold 0x94 too)
    for (uint8_t b : whole) memoized += b == 0x94;
    QVERIFY2(one.referenced() > 10 && one.referenced() * 3 < memoized,
             qPrintable(QString("%1 of %2").arg(one.referenced()).arg(memoized)));
    for (size_t window : {260, 300, 301, 1000, 4097}) {
        auto w = scanIn(window);
        QCOMPARE(w.referenced(), one.referenced());
        for (uint64_t i = 0; i < memoized; ++i)
            QVERIFY2((w.slot(i) != nullptr) == (one.slot(i) != nullptr), qPrintable(QString::number(i)));
    }
}

void TestPickleReader::everyTruncationOfARealSampleIsRejected() {
    // Decompressed real snapshot, cut at every byte: each prefix must fail cleanly with an offset.
    const auto whole = vs::test::readFile(vs::test::samplePath("stacks_all"));
    QVERIFY(whole.size() > 1000);
    load(whole); // the whole file loads
    for (size_t n = 0; n < whole.size(); ++n) {
        std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<long>(n));
        try {
            load(cut);
            QFAIL(qPrintable(QString("a prefix of %1 bytes was accepted").arg(n)));
        } catch (const LoadError& e) {
            if (n > 0) QVERIFY2(std::string(e.what()).find("at byte") != std::string::npos, e.what());
        }
    }
}

void TestPickleReader::corruptCompressedInputIsRejected() {
    const auto whole = vs::test::readFile(vs::test::samplePath("stacks_all"));
    std::vector<uint8_t> z(ZSTD_compressBound(whole.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), whole.data(), whole.size(), 3));
    QCOMPARE(load(z)->devices[0].eventCount(), load(whole)->devices[0].eventCount());
    std::vector<uint8_t> half(z.begin(), z.begin() + static_cast<long>(z.size() / 2));
    QVERIFY_THROWS_EXCEPTION(LoadError, load(half));
    auto flipped = z;
    flipped[z.size() / 2] ^= 0x55;
    QVERIFY_THROWS_EXCEPTION(LoadError, load(flipped));

    uLongf gzLen = compressBound(uLong(whole.size()));
    std::vector<uint8_t> gz;
    { // a real gzip stream via zlib's deflate with gzip headers
        z_stream s{};
        deflateInit2(&s, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        gz.resize(gzLen + 64);
        s.next_in = const_cast<Bytef*>(whole.data()), s.avail_in = uInt(whole.size());
        s.next_out = gz.data(), s.avail_out = uInt(gz.size());
        QCOMPARE(deflate(&s, Z_FINISH), Z_STREAM_END);
        gz.resize(s.total_out);
        deflateEnd(&s);
    }
    QCOMPARE(load(gz)->devices[0].eventCount(), load(whole)->devices[0].eventCount());
    std::vector<uint8_t> gzHalf(gz.begin(), gz.begin() + static_cast<long>(gz.size() / 2));
    QVERIFY_THROWS_EXCEPTION(LoadError, load(gzHalf));
    // A decompression bomb is stopped at the limit instead of eating the memory.
    QVERIFY_THROWS_EXCEPTION(LoadError, InputBuffer::fromMemory(z, 1000));
}

void TestPickleReader::missingFileIsRejected() {
    try {
        loadSnapshotFile("/nonexistent/x.pickle");
        QFAIL("accepted a missing file");
    } catch (const LoadError& e) {
        QVERIFY(QString(e.what()).contains("cannot open /nonexistent/x.pickle"));
    }
}

QTEST_GUILESS_MAIN(TestPickleReader)
#include "tst_pickle_reader.moc"
