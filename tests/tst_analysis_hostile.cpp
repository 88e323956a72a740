// Hostile inputs for what runs after the reader (issue 31): the what-if simulator, the replay's
// segment lookup, compare, times, byte-order marks, compressed bombs. Each input is generated here;
// each command runs in a child process (CliChild.h) and must end within 10 s and 1.5 GB with the
// right result or one line naming the real problem.
#include "CliChild.h"
#include "HostileInputs.h"
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

namespace {

constexpr double kMaxSeconds = 10;
constexpr long kMaxRssMiB = 1536;

// AddressSanitizer's shadow memory and quarantine roughly double a process's peak: the bound scales.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kSanitizerFactor = 3;
#else
constexpr long kSanitizerFactor = 1;
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
    qInfo("%s: rc %d, %.2f s, %ld MiB", qPrintable(args.join(' ').section('/', -1)), r.rc, r.seconds, r.peakRssMiB);
    return r;
}

bool withinBounds(const CliRun& r) {
    return !r.timedOut && r.seconds < kMaxSeconds && r.peakRssMiB < kMaxRssMiB * kSanitizerFactor;
}

// The one line a refusal prints: "vramscope-cli: error: ..." and nothing else.
bool oneLineError(const CliRun& r, const std::string& says) {
    return r.rc == 2 && r.err.find(says) != std::string::npos && r.err.rfind("vramscope-cli: error: ", 0) == 0 &&
           r.err.find('\n') == r.err.size() - 1;
}

QJsonObject device0(const CliRun& r) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(r.out)).object()["devices"].toArray()[0].toObject();
}

} // namespace

class TestAnalysisHostile : public QObject {
    Q_OBJECT
  private slots:
    void whatIfRequestBeyondAnyDevice();
    void whatIfRangeIsCheckedAtEntry();
    void manySegmentsReplayInLinearithmicTime();
    void profilerTraceOfManyAllocations();

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
    QVERIFY2(conf.out.find("requests 2.00 TiB, more than any GPU has") != std::string::npos, conf.out.c_str());
    const CliRun sweep = cli({"whatif", file, "--sweep", "--json"});
    QVERIFY2(sweep.rc == 0 && withinBounds(sweep), sweep.summary().c_str());
    const QJsonArray results = QJsonDocument::fromJson(QByteArray::fromStdString(sweep.out)).object()["sweep"].toArray();
    QVERIFY(results.size() >= 15);
    for (const auto& v : results) // every setting served it: 2 TiB and at most one page more
        QVERIFY2(v.toObject()["peak_reserved"].toDouble() >= double(1ull << 41) && v.toObject()["oom"].isNull(),
                 qPrintable(v.toObject()["conf"].toString()));
    const CliRun capped = cli({"whatif", file, "--conf", "expandable_segments:True", "--capacity", "80GiB"});
    QVERIFY2(capped.rc == 0 && withinBounds(capped), capped.summary().c_str());
    QVERIFY2(capped.out.find("would run out of memory at 0.000 s (a request of 2.00 TiB") != std::string::npos,
             capped.out.c_str());
    const CliRun absurd = cli({"whatif", file, "--conf", "expandable_segments:True", "--capacity", "1e30"});
    QVERIFY2(oneLineError(absurd, "--capacity: '1e30' is more than any device has (at most 1.00 PiB)"),
             absurd.summary().c_str());
    // 2^40 was always fine and stays exact.
    const QString tib = writeFile(dir_, "tib.pickle", test::hugeRequestSnapshot(1ull << 40));
    const CliRun one = cli({"whatif", tib, "--conf", "expandable_segments:True"});
    QVERIFY2(one.rc == 0 && one.out.find("every one of 3 steps reproduced") != std::string::npos, one.out.c_str());
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
        QCOMPARE(std::string(e.what()),
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

QTEST_APPLESS_MAIN(TestAnalysisHostile)
#include "tst_analysis_hostile.moc"
