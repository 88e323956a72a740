// Hostile inputs for what runs after the reader (issue 31): the what-if simulator, the replay's
// segment lookup, compare, times, byte-order marks, compressed bombs. Each input is generated here;
// each command runs in a child process (CliChild.h) and must end within 10 s and 1.5 GB with the
// right result or one line naming the real problem.
#include "CliChild.h"
#include "HostileInputs.h"
#include "analysis/RecorderPauses.h"
#include "compare/CaptureDiff.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/MemoryBudget.h"
#include "io/SnapshotLoader.h"
#include "io/VscapStream.h"
#include "load/OpenAnalysis.h"
#include "sim/SimRange.h"
#include "sim/WhatIf.h"
#include "util/Format.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace vs;
using vs::test::CliRun;
using vs::test::PickleBuilder;

namespace {

constexpr double kMaxSeconds = 10; // and 1.5 GB (kMaxRssMiB): the bounds of issue 31
constexpr long kMaxRssMiB = 1536;

// AddressSanitizer's shadow memory roughly doubles a process's peak, and its quarantine keeps up to
// 256 MiB of freed memory: the bounds scale, and the small ones get the quarantine on top.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kSanitizerFactor = 3, kQuarantineMiB = 256;
#else
constexpr long kSanitizerFactor = 1, kQuarantineMiB = 0;
#endif

template <class Bytes> QString writeFile(const QTemporaryDir& dir, const QString& name, const Bytes& bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size()));
    return path;
}

CliRun cli(const QStringList& args) {
    const CliRun r = vs::test::runCliMeasured(QStringLiteral(VRAMSCOPE_CLI), args);
    qInfo("%s: rc %d, %.2f s, %ld MiB", qPrintable(args.join(' ').section('/', -1)), r.rc, r.seconds,
          r.peakRssMiB);
    return r;
}

bool withinBounds(const CliRun& r) { // a sanitized build runs a few times slower too
    return !r.timedOut && r.seconds < kMaxSeconds * kSanitizerFactor &&
           r.peakRssMiB < kMaxRssMiB * kSanitizerFactor;
}

// The one line a refusal prints: "vramscope-cli: error: ..." and nothing else.
bool oneLineError(const CliRun& r, const std::string& says) {
    return r.rc == 2 && r.err.find(says) != std::string::npos &&
           r.err.rfind("vramscope-cli: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

QJsonObject device0(const CliRun& r) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(r.out))
        .object()["devices"]
        .toArray()[0]
        .toObject();
}

} // namespace

class TestAnalysisHostile : public QObject {
    Q_OBJECT
  private slots:
    void whatIfRequestBeyondAnyDevice();
    void whatIfRangeIsCheckedAtEntry();
    void manySegmentsReplayInLinearithmicTime();
    void profilerTraceOfManyAllocations();
    void profilerSpansNestedDeep();
    void allocationsInsideFreeBlocks();
    void timesAreCheckedOnEveryPath_data();
    void timesAreCheckedOnEveryPath();
    void liveStreamChecksTimesToo();
    void byteOrderMarksAndDetection();
    void compressedJsonBombIsRefusedAsItInflates();
    void pickleBombStaysWithinTheBudget();
    void lineNumbersOutOfRangeAreUnknown();
    void sizesPast63PrintAsWritten();
    void oomOfMoreThan63BitsWithAllFree();
    void compareOfDeepDistinctStacks();
    void totalsPast63BitsAreRefused();
    void pauseAnnotationTimesAreChecked();

  private:
    QTemporaryDir dir_;
};

// A 2 TiB request (2^41 B) made whatif --conf expandable_segments:True and --sweep die with SIGSEGV:
// the expandable reservation (1 TiB when the capacity is unknown) was mapped to its end and the
// simulator walked past it. It is now simulated as if the device were that large, with a note, and
// under a given capacity it is the out-of-memory it would be.
void TestAnalysisHostile::whatIfRequestBeyondAnyDevice() {
    const QString file = writeFile(dir_, "huge.pickle", test::hugeRequestSnapshot(1ull << 41));
    const CliRun conf = cli({"whatif", file, "--conf", "expandable_segments:True"});
    QVERIFY2(conf.rc == 0 && withinBounds(conf), conf.summary().c_str());
    QVERIFY2(conf.out.find("peak reserved 2.00 TiB") != std::string::npos, conf.out.c_str());
    QVERIFY2(conf.out.find("requests 2.00 TiB, more than any GPU has") != std::string::npos,
             conf.out.c_str());
    const CliRun sweep = cli({"whatif", file, "--sweep", "--json"});
    QVERIFY2(sweep.rc == 0 && withinBounds(sweep), sweep.summary().c_str());
    const QJsonArray results =
        QJsonDocument::fromJson(QByteArray::fromStdString(sweep.out)).object()["sweep"].toArray();
    QVERIFY(results.size() >= 15);
    for (const auto& v : results) // every setting served it: 2 TiB and at most one page more
        QVERIFY2(v.toObject()["peak_reserved"].toDouble() >= double(1ull << 41) &&
                     v.toObject()["oom"].isNull(),
                 qPrintable(v.toObject()["conf"].toString()));
    const CliRun capped = cli({"whatif", file, "--conf", "expandable_segments:True", "--capacity", "80GiB"});
    QVERIFY2(capped.rc == 0 && withinBounds(capped), capped.summary().c_str());
    QVERIFY2(capped.out.find("would run out of memory at 0.000 s (a request of 2.00 TiB") !=
                 std::string::npos,
             capped.out.c_str());
    const CliRun absurd = cli({"whatif", file, "--conf", "expandable_segments:True", "--capacity", "1e30"});
    QVERIFY2(oneLineError(absurd, "--capacity: '1e30' is more than any device has (at most 1.00 PiB)"),
             absurd.summary().c_str());
    // 2^40 was always fine and stays exact.
    const QString tib = writeFile(dir_, "tib.pickle", test::hugeRequestSnapshot(1ull << 40));
    const CliRun one = cli({"whatif", tib, "--conf", "expandable_segments:True"});
    QVERIFY2(one.rc == 0 && one.out.find("every one of 3 steps reproduced") != std::string::npos,
             one.out.c_str());
}

// The simulator states its range (SimRange.h) and refuses what is past it before simulating.
void TestAnalysisHostile::whatIfRangeIsCheckedAtEntry() {
    SimInput in;
    in.requests.push_back({SimRequest::Kind::Alloc, 7, 0, 1ull << 51, 0, 0, 0});
    in.largestRequest = 1ull << 51, in.largestRequestEvent = 7, in.demand = 1ull << 51;
    try {
        simulate(in, SimConfig{});
        QFAIL("a request of 2 PiB was simulated");
    } catch (const SimRangeError& e) {
        QCOMPARE(
            std::string(e.what()),
            std::string("the what-if simulator handles requests up to 1.00 PiB; event 7 requests 2.00 PiB "
                        "(2251799813685248 B)"));
    }
    in.largestRequest = 1ull << 50, in.demand = UINT64_MAX, in.demandExceededAt = 4096;
    QVERIFY_THROWS_EXCEPTION(SimRangeError, simulate(in, SimConfig{}));
    in.demand = 1ull << 50;
    QVERIFY_THROWS_EXCEPTION(SimRangeError, simulate(in, SimConfig{}, {UINT64_MAX, false, nullptr}));
    // A recorded out-of-memory of 2^63 bytes (readers keep an OOM's size as recorded) fails under
    // every setting without being simulated.
    SimInput oom;
    oom.requests.push_back({SimRequest::Kind::Oom, 0, 0, 1ull << 63, 0, 0, 0});
    const SimResult r = simulate(oom, SimConfig{}.with("expandable_segments:True"));
    QCOMPARE(r.recordedOomsReproduced, 1u);
    QCOMPARE(r.peakReserved, int64_t(0));
    QCOMPARE(humanSize(UINT64_MAX), std::string("16.00 EiB (18446744073709551615 B)"));
    QCOMPARE(humanBytes(INT64_MIN), std::string("-8.00 EiB"));
}

// 200k segments, each cudaMalloc'd for one allocation: every segment_alloc scanned every segment
// (past 20 s). The replay looks segments up in an ordered index; the figures are exact.
void TestAnalysisHostile::manySegmentsReplayInLinearithmicTime() {
    const uint32_t n = 200000;
    const QString file = writeFile(dir_, "segments.pickle", test::manySegmentsSnapshot(n));
    const CliRun r = cli({"summary", file, "--json"});
    QVERIFY2(r.rc == 0 && withinBounds(r), r.summary().c_str());
    const QJsonObject d = device0(r);
    QCOMPARE(d["segments"].toInt(), int(n));
    QCOMPARE(d["final_reserved"].toDouble(), double(n) * (2 << 20));
    QCOMPARE(d["final_allocated"].toDouble(), double(n) * (2 << 20));
    QVERIFY(d["replay_exact"].toBool());
}

// A torch.profiler trace makes each allocation a segment of its own: 17 s at 200k allocations.
void TestAnalysisHostile::profilerTraceOfManyAllocations() {
    const uint32_t n = 200000;
    const QString file = writeFile(dir_, "allocations.json", test::manyAllocationsTrace(n));
    const CliRun r = cli({"summary", file, "--json"});
    QVERIFY2(r.rc == 0 && withinBounds(r), r.summary().c_str());
    const QJsonObject d = device0(r);
    QCOMPARE(d["segments"].toInt(), int(n));
    QCOMPARE(d["final_allocated"].toDouble(), double(n) * 512);
    QVERIFY(d["replay_exact"].toBool());
}

// Spans nested 10,000 deep with an allocation at every depth: every site was a copy of the names of
// the spans around it and became a stack as deep (quadratic: 17.8 s, 809 MB for 3.3 MB). Sites are
// a tree now, and the frames their stacks would hold are checked against the text first.
void TestAnalysisHostile::profilerSpansNestedDeep() {
    const CliRun deep = cli({"summary", writeFile(dir_, "nested.json", test::nestedSpansTrace(10000))});
    QVERIFY2(oneLineError(deep,
                          "spans nest so deep that the call stacks of its allocations would hold 50005000 "
                          "frames") &&
                 withinBounds(deep),
             deep.summary().c_str());
    // 300 deep (what a deep recursion with with_stack=True makes) loads, each stack its spans.
    const std::string trace = test::nestedSpansTrace(300);
    const auto c = loadCaptureBytes({reinterpret_cast<const uint8_t*>(trace.data()), trace.size()}, {});
    const DeviceTrace& t = c->devices.at(0);
    size_t deepest = 0;
    for (size_t i = 0; i < t.eventCount(); ++i)
        deepest = std::max(deepest, c->stacks.frames(t.stack[i]).size());
    QCOMPARE(deepest, size_t(300));
}

// Allocations that each land inside a free block (a trace that contradicts the state at every
// alloc) walked the segment's blocks to find it: the replay keeps its ordered index of free blocks
// from the first such alloc on.
void TestAnalysisHostile::allocationsInsideFreeBlocks() {
    const QString file = writeFile(dir_, "inside.pickle", test::allocationsInsideFreeBlocks(200000));
    const CliRun r = cli({"summary", file, "--json"});
    QVERIFY2(r.rc == 0 && withinBounds(r), r.summary().c_str());
    QVERIFY2(r.out.find("events contradict the replayed allocator state") != std::string::npos,
             r.out.c_str());
}

// Impossible times: accepted silently on two of three paths (a profiler ts of -10^20 µs, a .vscap whose
// base time is INT64_MIN, deltas that overflow so that the capture ends before it starts). Every path
// now refuses a time before 1970 or after 2200 (TimeRange.h) naming where it is.
void TestAnalysisHostile::timesAreCheckedOnEveryPath_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("says");
    const auto q = [](const auto& b) {
        return QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()));
    };
    using test::kEpochUs;
    QTest::newRow("pickle: -5") << q(test::snapshotOf([](PickleBuilder&) {},
                                                      [](PickleBuilder& p) {
                                                          test::traceEntry(p, "alloc", 1 << 20, 512, -5);
                                                      }))
                                << "t.pickle"
                                << "trace entry 0 (in file order, 'alloc'): time_us -5 is negative";
    QTest::newRow("profiler: ts -1e20")
        << q(test::profilerTraceOf({test::profilerMemoryEvent("-1e20", 4096, 512, 512)})) << "t.json"
        << "the torch.profiler trace's [memory] event 0 (in file order, ts -1e+20): time_us -9.99983e+19 is "
           "before 1970";
    QTest::newRow("profiler: ts 1e300")
        << q(test::profilerTraceOf({test::profilerMemoryEvent("1", 4096, 512, 512),
                                    test::profilerMemoryEvent("1e300", 8192, 512, 1024)}))
        << "t.json"
        << "[memory] event 1 (in file order, ts 1e+300): time_us 1e+300 is after the year 2200";
    QTest::newRow("profiler: base time 10^30 ns")
        << q(std::string(R"({"baseTimeNanoseconds": 1e30, "traceEvents": [)") +
             test::profilerMemoryEvent("1", 4096, 512, 512) + "]}")
        << "t.json"
        << "the torch.profiler trace's baseTimeNanoseconds 1e+30 is after the year 2200";
    QTest::newRow(".vscap: base time INT64_MIN")
        << q(test::vscapWithTimes(INT64_MIN, {0, 1})) << "t.vscap"
        << "event 0 of device 0: the Events record's base time_us -9223372036854775808 is before 1970";
    QTest::newRow(".vscap: base time 4.6e18 (after 2200)")
        << q(test::vscapWithTimes(int64_t(4.6e18), {0, -int64_t(9.2e18)})) << "t.vscap"
        << "event 0 of device 0: the Events record's base time_us 4600000000000000000 is after the year 2200";
    QTest::newRow(".vscap: deltas overflow")
        << q(test::vscapWithTimes(kEpochUs, {0, 1, INT64_MAX, INT64_MAX})) << "t.vscap"
        << "event 2 of device 0: time_us -9221672036854775808 is before 1970 (its delta from event 1 "
           "overflows or "
           "leaves the range)";
}

void TestAnalysisHostile::timesAreCheckedOnEveryPath() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, name);
    QFETCH(QString, says);
    const CliRun r = cli({"summary", writeFile(dir_, name, bytes)});
    QVERIFY2(oneLineError(r, says.toStdString()) && withinBounds(r), r.summary().c_str());
}

// The live stream is .vscap records: the same check, on the bytes as they arrive.
void TestAnalysisHostile::liveStreamChecksTimesToo() {
    const std::string bytes = test::vscapWithTimes(test::kEpochUs, {0, 1, INT64_MAX, INT64_MAX});
    vscap::StreamAssembler live;
    try {
        live.feed(bytes);
        QFAIL("the live stream took an overflowing time");
    } catch (const LoadError& e) {
        QVERIFY2(std::string(e.what()).find("time_us -9221672036854775808 is before 1970") !=
                     std::string::npos,
                 e.what());
    }
    // A span outside 1970..2200 only names sites and steps: left out, with a warning, and the trace loads.
    const std::string span =
        R"({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": -1e20, "dur": 5})";
    const std::string trace = test::profilerTraceOf({span, test::profilerMemoryEvent("1", 4096, 512, 512)});
    const auto c = loadCaptureBytes({reinterpret_cast<const uint8_t*>(trace.data()), trace.size()}, {});
    QCOMPARE(c->devices.at(0).eventCount(), size_t(2));
    QVERIFY(std::find(
                c->warnings.begin(), c->warnings.end(),
                "1 operator or record_function spans left out: their times are before 1970 or after 2200") !=
            c->warnings.end());
}

// A JSON trace starting with a UTF-8 byte-order mark was refused as "not a pickle"; UTF-16 too.
void TestAnalysisHostile::byteOrderMarksAndDetection() {
    const std::string trace = test::manyAllocationsTrace(3);
    const CliRun bom = cli({"summary", writeFile(dir_, "bom.json", "\xef\xbb\xbf" + trace), "--json"});
    QVERIFY2(bom.rc == 0 && device0(bom)["final_allocated"].toInt() == 3 * 512, bom.summary().c_str());
    const CliRun utf16 = cli({"summary", writeFile(dir_, "utf16.json", test::utf16le(trace))});
    QVERIFY2(oneLineError(utf16, "UTF-16 JSON is not supported"), utf16.summary().c_str());
    const std::string noBom = test::utf16le(trace).substr(2); // UTF-16 without its mark: told by the NULs
    const CliRun bare = cli({"summary", writeFile(dir_, "utf16bare.json", noBom)});
    QVERIFY2(oneLineError(bare, "UTF-16 JSON is not supported"), bare.summary().c_str());
    // What the detection took the file for, and why, when nothing fits.
    const CliRun text = cli({"summary", writeFile(dir_, "notes.txt", std::string("hello world\n"))});
    QVERIFY2(oneLineError(text,
                          "it has no .vscap header and is not JSON, so it was read as a PyTorch snapshot "
                          "pickle, but it is not a pickle either (it starts with 0x68 0x65 0x6c 0x6c, not "
                          "the PROTO opcode 0x80)"),
             text.summary().c_str());
    // A compressor it does not read is named, with what to run (the bytes after the magic do not matter).
    const CliRun xz = cli({"summary", writeFile(dir_, "snap.pickle.xz",
                                                std::string("\xfd"
                                                            "7zXZ\0\0\4junk",
                                                            12))});
    QVERIFY2(oneLineError(xz, "compressed with xz, which vramscope does not read: decompress it first (xz "
                              "-dc FILE > run.pickle)"),
             xz.summary().c_str());
    const CliRun bz = cli({"summary", writeFile(dir_, "snap.pickle.bz2", std::string("BZh91AY&SY"))});
    QVERIFY2(oneLineError(bz, "compressed with bzip2"), bz.summary().c_str());
    const CliRun zip = cli({"summary", writeFile(dir_, "model.pt", std::string("PK\3\4junk", 8))});
    QVERIFY2(oneLineError(zip, "a zip archive, which vramscope does not read: a torch.save() file is one"),
             zip.summary().c_str());
}

// 4 GiB of whitespace inside a 4 MB .json.gz was refused only after reaching 2.0 GB: the text was
// inflated whole first, and the JSON parser kept the whitespace run as its current token. The trace is
// now parsed as it inflates (a window at a time) and a token past 16 MiB is refused.
void TestAnalysisHostile::compressedJsonBombIsRefusedAsItInflates() {
    const std::string bomb = test::gzipOf(R"({"traceEvents": [)", " ", 256, "]}");
    QVERIFY2(bomb.size() < 5 << 20, qPrintable(QString::number(bomb.size())));
    const CliRun r = cli({"summary", writeFile(dir_, "bomb.json.gz", bomb)});
    QVERIFY2(
        oneLineError(
            r, "a JSON token (a string, a number or whitespace) longer than 16 MiB, which no trace holds"),
        r.summary().c_str());
    QVERIFY2(r.peakRssMiB < 100 * kSanitizerFactor + kQuarantineMiB && withinBounds(r), r.summary().c_str());
    // Long strings instead (1 GiB of them, a MiB each, inside one event): the text is checked against
    // the budget as it inflates.
    const std::string many =
        test::gzipOf(R"({"traceEvents": [[)", '"' + std::string(1 << 20, 'a') + "\",", 64, "0]]}");
    const CliRun m = cli({"summary", writeFile(dir_, "objects.json.gz", many), "--max-memory", "64M"});
    QVERIFY2(oneLineError(m, "this file would need more than 64 MiB of memory") &&
                 m.peakRssMiB < 100 * kSanitizerFactor + kQuarantineMiB && withinBounds(m),
             m.summary().c_str());
    // ...and 1 GiB of empty events ("{},", 5 s to parse up to the expansion bound from 0.5 MB) by the
    // events a compressed byte carries, after the first window,
    const std::string events = test::gzipOf(R"({"traceEvents": [)", "{},", 64, "{}]}");
    const CliRun e = cli({"summary", writeFile(dir_, "events.json.gz", events)});
    QVERIFY2(oneLineError(e, "a decompression bomb, not a torch.profiler trace") && withinBounds(e),
             e.summary().c_str());
    // ...and 1 GiB of "0," (3 s to parse up to the bound from 0.5 MB) by the values it carries.
    const std::string zeros = test::gzipOf(R"({"traceEvents": [[)", "0,", 64, "0]]}");
    const CliRun z = cli({"summary", writeFile(dir_, "zeros.json.gz", zeros)});
    QVERIFY2(oneLineError(z, "JSON values from") && withinBounds(z), z.summary().c_str());
    // A real trace compressed reads as before.
    const std::string ok = test::gzipOf(test::manyAllocationsTrace(1000), " ", 0, "");
    const CliRun fine = cli({"summary", writeFile(dir_, "fine.json.gz", ok), "--json"});
    QVERIFY2(fine.rc == 0 && device0(fine)["final_allocated"].toInt() == 1000 * 512, fine.summary().c_str());
}

// The whole-buffer path (pickles, which need all their bytes): the buffer grows in place, so the
// load's budget bounds the peak, not one and a half times it.
void TestAnalysisHostile::pickleBombStaysWithinTheBudget() {
    const std::string bomb = test::gzipOf("\x80\x04", std::string(1, '\0'), 256, ".");
    const CliRun r = cli({"summary", writeFile(dir_, "bomb.pickle.gz", bomb), "--max-memory", "256M"});
    QVERIFY2(oneLineError(r, "this file would need more than 256 MiB of memory"), r.summary().c_str());
    QVERIFY2(r.peakRssMiB < (256 + 64) * kSanitizerFactor + kQuarantineMiB && withinBounds(r),
             r.summary().c_str());
}

// Line numbers out of range were changed silently and inconsistently (-5 -> 0, 2^62 -> 2147483647,
// 2^64 -> 0). One rule now (LineRange.h): outside 0..2^31-1 is 0, unknown, with one warning.
void TestAnalysisHostile::lineNumbersOutOfRangeAreUnknown() {
    const auto frameAt = [](PickleBuilder& p, int i, auto line) {
        p.emptyDict().mark().key("name").str("f" + std::to_string(i)).key("filename").key("x.py").key("line");
        line(p);
        p.setitems();
    };
    const auto snapshot = test::snapshotOf(
        [](PickleBuilder&) {},
        [&](PickleBuilder& p) {
            p.emptyDict().mark().key("action").key("alloc").key("addr").integer(1 << 20).key("size").integer(
                512);
            p.key("time_us").integer(test::kEpochUs).key("frames").emptyList().mark();
            frameAt(p, 0, [](PickleBuilder& q) { q.integer(-5); });
            frameAt(p, 1, [](PickleBuilder& q) { q.integer(int64_t(1) << 62); });
            frameAt(p, 2, [](PickleBuilder& q) {
                const uint8_t twoTo64[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
                q.op(0x8a).op(9).raw(twoTo64, 9);
            });
            frameAt(p, 3, [](PickleBuilder& q) { q.integer(42); });
            p.appends().setitems();
        });
    const auto c = loadCaptureBytes(snapshot, {});
    QCOMPARE(c->frames.size(), size_t(4));
    for (uint32_t f = 0; f < 4; ++f) QCOMPARE(c->frames[FrameId{f}].line, f == 3 ? 42u : 0u);
    const std::string warning = "3 frames have line numbers outside 0..2147483647: read as 0 (unknown)";
    QVERIFY(std::find(c->warnings.begin(), c->warnings.end(), warning) != c->warnings.end());
    // A torch.profiler Python frame "file.py(LINE): name" past 2^64 and a .vscap frame of 2^62: the same
    // rule.
    const std::string span =
        R"({"ph": "X", "cat": "python_function", "name": "x.py(99999999999999999999): f", "pid": 1, "tid": 1, "ts": 0, "dur": 5})";
    const std::string trace = test::profilerTraceOf({span, test::profilerMemoryEvent("1", 4096, 512, 512)});
    const auto t = loadCaptureBytes({reinterpret_cast<const uint8_t*>(trace.data()), trace.size()}, {});
    QCOMPARE(t->frames[FrameId{0}].line, 0u);
    QVERIFY(std::find(t->warnings.begin(), t->warnings.end(),
                      "1 frame has a line number outside 0..2147483647: read as 0 (unknown)") !=
            t->warnings.end());
}

// A size past 2^63 printed as a negative number in the error naming it.
void TestAnalysisHostile::sizesPast63PrintAsWritten() {
    const std::string trace = test::profilerTraceOf(
        {R"({"ph": "i", "name": "[memory]", "ts": 1, "args": {"Addr": 4096, "Bytes": 9223372036854775808, "Device Id": 0, "Device Type": 1}})"});
    const CliRun r = cli({"summary", writeFile(dir_, "big.json", trace)});
    QVERIFY2(oneLineError(r, "has an impossible size (9223372036854775808 bytes)"), r.summary().c_str());
    const std::string huge = test::profilerTraceOf(
        {R"({"ph": "i", "name": "[memory]", "ts": 1, "args": {"Addr": 4096, "Bytes": 1e20, "Device Id": 0, "Device Type": 1}})"});
    const CliRun f = cli({"summary", writeFile(dir_, "huge.json", huge)});
    QVERIFY2(oneLineError(f, "has an impossible size (1e20 bytes)"), f.summary().c_str());
    const auto p = test::snapshotOf(
        [](PickleBuilder&) {},
        [](PickleBuilder& b) {
            const uint8_t twoTo64[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
            b.emptyDict().mark().key("action").key("alloc").key("size").op(0x8a).op(9).raw(twoTo64, 9);
            b.key("time_us").integer(test::kEpochUs).setitems();
        });
    const CliRun s = cli({"summary", writeFile(dir_, "wide.pickle", p)});
    QVERIFY2(oneLineError(s, "trace entry 'size' of more than 64 bits is larger than any device memory"),
             s.summary().c_str());
}

// An OOM entry asking for 3 * 2^62 bytes with 2^63 - 1 free on the device (found by fuzzing): the
// check for fragmentation summed the free bytes in signed 64 bits and overflowed (UBSan). The request
// fits nowhere, so it is the step's own need, said in one diagnosis.
void TestAnalysisHostile::oomOfMoreThan63BitsWithAllFree() {
    const uint64_t at = uint64_t(1) << 40, seg = 20 << 20;
    const auto p =
        test::snapshotOf([&](PickleBuilder& b) { test::wholeSegment(b, at, seg, "inactive"); },
                         [&](PickleBuilder& b) {
                             test::traceEntry(b, "segment_alloc", at, seg, test::kEpochUs);
                             test::traceEntry(b, "alloc", at, 1 << 20, test::kEpochUs + 1);
                             test::traceEntry(b, "free_requested", at, 1 << 20, test::kEpochUs + 2);
                             test::traceEntry(b, "free_completed", at, 1 << 20, test::kEpochUs + 3);
                             const uint64_t big = 0xC000000000000000ull;
                             b.emptyDict().mark().key("action").key("oom").key("size");
                             b.op(0x8a).op(9).raw(&big, 8).op(0);
                             b.key("device_free").integer(INT64_MAX);
                             b.key("time_us").integer(test::kEpochUs + 4).key("stream").integer(0);
                             b.setitems();
                         });
    const CliRun r = cli({"leaks", writeFile(dir_, "oom_past_63.pickle", p), "--json"});
    QVERIFY2(r.rc == 0 && withinBounds(r), r.summary().c_str());
    const QJsonObject d =
        QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object()["diagnosis"].toObject();
    QCOMPARE(d["kind"].toString(), QStringLiteral("oom"));
    QVERIFY(d["cause"].toString() != QStringLiteral("fragmentation"));
}

// Two captures of 1,000 allocations, each under a distinct stack 10,000 frames deep: compare grew to
// 2.4-2.8 GB (a text key and a string per frame for every stack, copied into every row) and then
// blamed "reading the input". Stacks are keys of frame ids now (StackKey.h), a row keeps 64 frames of text.
void TestAnalysisHostile::compareOfDeepDistinctStacks() {
    const QString a = writeFile(dir_, "deepA.pickle", test::deepStacksSnapshot(1000, 10000, 512));
    const QString b = writeFile(dir_, "deepB.pickle", test::deepStacksSnapshot(1000, 10000, 1024));
    const CliRun r = cli({"compare", a, b, "--json", "--top", "1000"});
    QVERIFY2(r.rc == 0 && withinBounds(r), r.summary().c_str());
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object();
    QCOMPARE(o["a"].toObject()["live_allocated"].toInt(), 1000 * 512);
    QCOMPARE(o["b"].toObject()["live_allocated"].toInt(), 1000 * 1024);
    const QJsonArray stacks = o["stacks"].toArray();
    QCOMPARE(stacks.size(), 1000); // every stack its own row, each grown by 512 bytes
    const QJsonObject first = stacks[0].toObject();
    QCOMPARE(first["live_delta"].toInt(), 512);
    const QJsonArray frames = first["frames"].toArray();
    QCOMPARE(frames.size(), 65); // the outermost 32, "... 9936 frames ...", the innermost 32
    QCOMPARE(frames[32].toString(), QStringLiteral("... 9936 frames ..."));
    QVERIFY2(frames[64].toString().startsWith("leaf"), qPrintable(frames[64].toString()));
    // The keys of the stacks are held to the loads' budget (--max-memory): past it the refusal names
    // the comparison, not the reading (the keys of these 2,000 stacks take a few hundred KiB).
    const auto load = [](const std::vector<uint8_t>& bytes) {
        return CaptureAnalysis::analyse(loadCaptureBytes(bytes, {}));
    };
    const auto sa = load(test::deepStacksSnapshot(100, 1000, 512)),
               sb = load(test::deepStacksSnapshot(100, 1000, 1024, "other"));
    const uint64_t before = MemoryBudget::processDefault();
    MemoryBudget::setProcessDefault(16 << 10);
    try {
        compareCaptures(wholeDevice(*sa, 0), wholeDevice(*sb, 0));
        MemoryBudget::setProcessDefault(before);
        QFAIL("compared past the budget");
    } catch (const LoadError& e) {
        MemoryBudget::setProcessDefault(before);
        QVERIFY2(std::string(e.what()).starts_with("comparing the call stacks: ") &&
                     std::string(e.what()).find(
                         "would need more than 16384 bytes of memory; raise --max-memory if you "
                         "trust the files") != std::string::npos,
                 e.what());
    }
}

// 8,192 segments of 2^50 bytes, each holding one live block, add up to 2^63: the replay's totals
// wrapped (a peak of 8191 PiB). Refused naming the event; 8,191 fit and are exact, not clamped.
void TestAnalysisHostile::totalsPast63BitsAreRefused() {
    const uint64_t PiB = 1ull << 50;
    const CliRun r =
        cli({"summary", writeFile(dir_, "8192x1PiB.pickle", test::manySegmentsSnapshot(8192, PiB))});
    QVERIFY2(oneLineError(r, "device 0, event 16382 ('segment_alloc' of 1125899906842624 bytes): the memory "
                             "alive at once adds up to more than 2^63 bytes") &&
                 withinBounds(r),
             r.summary().c_str());
    const CliRun fits = cli(
        {"summary", "--json", writeFile(dir_, "8191x1PiB.pickle", test::manySegmentsSnapshot(8191, PiB))});
    QVERIFY2(fits.rc == 0 && withinBounds(fits), fits.summary().c_str());
    QCOMPARE(device0(fits)["peak_reserved"].toInteger(), qint64(8191 * PiB));
    QCOMPARE(device0(fits)["final_allocated"].toInteger(), qint64(8191 * PiB));
}

// Recorder pauses from a snapshot's external_annotations: one from -2^63 to 2^63-1 gave a negative
// total (signed overflow, UBSan). Times outside 1970..2200 and devices no ordinal has are skipped with
// a warning, as 'annotate' entries are; the plausible pause is kept.
void TestAnalysisHostile::pauseAnnotationTimesAreChecked() {
    const auto c = loadSnapshotBytes(test::pauseAnnotationsSnapshot(
        {{INT64_MIN, INT64_MAX}, {test::kEpochUs, test::kEpochUs + 2'000'000}}));
    QCOMPARE(c->annotations.size(), size_t(2));
    QCOMPARE(recorderPauseSeconds(*c), 2.0);
    QVERIFY(
        std::find(c->warnings.begin(), c->warnings.end(),
                  "2 'external_annotations' have a time_us outside 1970..2200 or no device's ordinal: they "
                  "were ignored") != c->warnings.end());
    const auto far =
        loadSnapshotBytes(test::pauseAnnotationsSnapshot({{test::kEpochUs, test::kEpochUs + 1}}, 1ll << 40));
    QVERIFY(far->annotations.empty());
}

QTEST_APPLESS_MAIN(TestAnalysisHostile)
#include "tst_analysis_hostile.moc"
