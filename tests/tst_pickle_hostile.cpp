// Hostile PyTorch snapshots: inputs that made the pickle path hang, take gigabytes or let impossible
// values reach the numbers. Each is made here, small, by PickleBuilder; each must end in a LoadError
// that says what is wrong, within bounds of time and memory measured in a child process (getrusage),
// so that one case's peak does not hide another's.
#include "PickleBuilder.h"
#include "io/LoadError.h"
#include "io/LoadMeter.h"
#include "io/MemoryBudget.h"
#include "io/SnapshotLoader.h"

#include <QtTest>

#include <chrono>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

using namespace vs;
using vs::test::PickleBuilder;

class TestPickleHostile : public QObject {
    Q_OBJECT
  private slots:
    void refusedWithinBounds_data();
    void refusedWithinBounds();
    void budgetIsNamedInTheMessage();
    void declaredZstdSizeIsCheckedFirst();
    void budgetParsing();
    void cliTakesMaxMemory();
    void fewDevicesStillLoad();
};

namespace {

using Bytes = std::vector<uint8_t>;

QByteArray toQ(const Bytes& b) {
    return QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size()));
}

// One trace entry dict: {'action': action, 'addr': addr, 'size': size, 'time_us': t}.
PickleBuilder& entry(PickleBuilder& p, const char* action, int64_t addr, int64_t size, int64_t t) {
    p.emptyDict().mark().str("action").str(action).str("addr").integer(addr).str("size").integer(size);
    return p.str("time_us").integer(t).setitems();
}

// {'segments': [], 'device_traces': [T] * devices} with T = [one entry], shared through the memo.
Bytes manyDevices(uint32_t devices) {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().str("segments").emptyList().str("device_traces").emptyList().mark();
    p.emptyList().mark(); // memo 5: the one trace
    entry(p, "alloc", 1 << 20, 512, 1700000000000000).appends();
    for (uint32_t i = 1; i < devices; ++i) p.get(5);
    return p.appends().setitems().stop().bytes;
}

// LONG_BINPUT to ever farther memo slots, each read back by LONG_BINGET: every 10 bytes ask for a
// million more slots that a GET names (slots that no GET names cost nothing: PickleMemo.h).
Bytes memoSlots() {
    PickleBuilder p;
    p.proto(4).op('N');
    for (uint32_t i = 1; i <= 1024; ++i) p.op('r').u32(i << 20).op('j').u32(i << 20);
    return p.stop().bytes;
}

// 10^4 segments, each the same memo-shared dict holding the same list of 10^4 block dicts.
Bytes sharedBlocks() {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().str("segments").emptyList().mark();                   // memo 0..2
    p.emptyDict().mark().str("device").integer(0).str("address").integer(0);            // memo 3..5
    p.str("total_size").integer(int64_t(512) * 10000).str("blocks").emptyList().mark(); // 6..8
    p.emptyDict().mark().str("size").integer(512).str("state").str("active_allocated").setitems(); // 9..12
    for (int i = 1; i < 10000; ++i) p.get(9);
    p.appends().setitems(); // the blocks into the list, the list into the segment
    for (int i = 1; i < 10000; ++i) p.get(3);
    return p.appends().setitems().stop().bytes;
}

// A frame list appended to one frame at a time, each extension re-interning the whole list.
Bytes quadraticStack() {
    PickleBuilder p;
    p.proto(4).emptyList().emptyDict().mark().str("name").str("f").str("filename").str("x.py");
    p.str("line").integer(1).setitems(); // memo 1: the frame
    p.op('a');                           // [frame]: the list becomes a stack
    for (int i = 0; i < 200000; ++i) p.get(1).op('a');
    return p.stop().bytes;
}

// A snapshot with one device's final segments and a trace of `entries`.
Bytes snapshot(const std::function<void(PickleBuilder&)>& segments,
               const std::function<void(PickleBuilder&)>& trace) {
    PickleBuilder p;
    p.proto(4).emptyDict().mark().str("segments").emptyList().mark();
    segments(p);
    p.appends().str("device_traces").emptyList().mark().emptyList().mark();
    trace(p);
    return p.appends().appends().setitems().stop().bytes;
}

PickleBuilder& segment(PickleBuilder& p, int64_t device, int64_t address, int64_t total,
                       std::vector<std::pair<int64_t, int64_t>> blocks) {
    p.emptyDict().mark().str("device").integer(device).str("address").integer(address);
    p.str("total_size").integer(total).str("blocks").emptyList().mark();
    for (auto [a, s] : blocks)
        p.emptyDict()
            .mark()
            .str("address")
            .integer(a)
            .str("size")
            .integer(s)
            .str("state")
            .str("active_allocated")
            .setitems();
    return p.appends().setitems();
}

Bytes zstdZeros(uint64_t bytes, bool declareSize) {
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    ZSTD_CCtx_setParameter(cx.get(), ZSTD_c_compressionLevel, 1);
    if (declareSize) ZSTD_CCtx_setPledgedSrcSize(cx.get(), bytes);
    const std::vector<uint8_t> zeros(1 << 20);
    Bytes out(ZSTD_CStreamOutSize());
    Bytes all;
    for (uint64_t done = 0; done < bytes;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(zeros.size(), bytes - done));
        done += n;
        ZSTD_inBuffer in{zeros.data(), n, 0};
        const auto mode = done == bytes ? ZSTD_e_end : ZSTD_e_continue;
        size_t left;
        do {
            ZSTD_outBuffer ob{out.data(), out.size(), 0};
            left = ZSTD_compressStream2(cx.get(), &ob, &in, mode);
            all.insert(all.end(), out.begin(), out.begin() + static_cast<long>(ob.pos));
        } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
    }
    return all;
}

struct ChildRun {
    std::string error; // the LoadError's message, empty if it loaded
    double seconds = 0;
    long peakRssKiB = 0;
};

// Loads `input` in a child process: its peak RSS is its own, and a hang is killed, not waited for.
ChildRun loadInChild(const Bytes& input, uint64_t maxMemory = MemoryBudget::processDefault()) {
    int fds[2];
    if (::pipe(fds) != 0) return {"pipe failed"};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        ::alarm(60);
        std::string message;
        try {
            LoadOptions o;
            o.maxMemory = maxMemory;
            loadSnapshotBytes(input, o);
        } catch (const LoadError& e) {
            message = e.what();
        } catch (const std::exception& e) {
            message = std::string("unexpected exception: ") + e.what();
        }
        if (::write(fds[1], message.data(), message.size()) < 0) ::_exit(3);
        ::_exit(0);
    }
    ::close(fds[1]);
    ChildRun r;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) r.error.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int status = 0;
    struct rusage ru {};
    ::wait4(pid, &status, 0, &ru);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.peakRssKiB = ru.ru_maxrss;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        r.error = "child died: status " + std::to_string(status);
    return r;
}

} // namespace

void TestPickleHostile::refusedWithinBounds_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("maxInputKiB");
    QTest::addColumn<int>("maxRssMiB"); // the bound each refusal is held to

    QTest::newRow("one-entry trace for 10^6 devices")
        << toQ(manyDevices(1000000))
        << "impossible snapshot: 'device_traces' lists 1000000 devices; at most 1024" << 2100 << 200;
    QTest::newRow("10^5 devices") << toQ(manyDevices(100000)) << "lists 100000 devices" << 250 << 200;
    QTest::newRow("LONG_BINPUT memo slots")
        << toQ(memoSlots()) << "would expand to more than 16 times its 10244 bytes" << 11 << 200;
    QTest::newRow("10^4 segments x 10^4 shared blocks")
        << toQ(sharedBlocks()) << "would expand to more than 16 times" << 45 << 200;
    QTest::newRow("frame list extended one frame at a time")
        << toQ(quadraticStack()) << "would expand to more than 16 times" << 700 << 200;
    QTest::newRow("10 GB of zeros as zstd")
        << toQ(zstdZeros(10ull << 30, false)) << "expands more than 256 times" << 400
        << 400; // the 256x bound (144 MiB) while the buffer doubles

    const auto noSegments = [](PickleBuilder&) {};
    auto oneEntryAt = [&](int64_t t) {
        return snapshot(noSegments, [t](PickleBuilder& p) { entry(p, "alloc", 1 << 20, 512, t); });
    };
    QTest::newRow("negative time") << toQ(oneEntryAt(-5))
                                   << "trace entry 0 (in file order, 'alloc'): time_us -5 is negative" << 1
                                   << 200;
    QTest::newRow("time -2^63") << toQ(oneEntryAt(INT64_MIN)) << "time_us -9223372036854775808 is negative"
                                << 1 << 200;
    QTest::newRow("time 2^63") // LONG1 of 9 bytes, as Python writes 2**63: printed as written
        << toQ(snapshot(noSegments,
                        [](PickleBuilder& p) {
                            const uint8_t twoTo63[9] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0};
                            p.emptyDict().mark().str("action").str("alloc").str("size").integer(512);
                            p.str("time_us").op(0x8a).op(9).raw(twoTo63, 9).setitems();
                        }))
        << "time_us 9223372036854775808 is after the year 2200" << 1 << 200;
    QTest::newRow("far-future time") << toQ(oneEntryAt(int64_t(1) << 62)) << "is after the year 2200" << 1
                                     << 200;
    const auto noTrace = [](PickleBuilder& p) { entry(p, "alloc", 1 << 20, 512, 1700000000000000); };
    QTest::newRow("overlapping blocks")
        << toQ(snapshot(
               [](PickleBuilder& p) {
                   segment(p, 0, 1 << 20, 4096, {{1 << 20, 2048}, {(1 << 20) + 1024, 2048}});
               },
               noTrace))
        << "impossible snapshot: segment 0 (device 0, 4096 bytes at 0x100000): block 1 (2048 bytes at "
           "0x100400) "
           "overlaps the block before it"
        << 1 << 200;
    QTest::newRow("block outside its segment")
        << toQ(snapshot(
               [](PickleBuilder& p) {
                   segment(p, 0, 1 << 20, 4096, {{1 << 21, 512}});
               },
               noTrace))
        << "block 0 (512 bytes at 0x200000) lies outside its segment" << 1 << 200;
    QTest::newRow("block past its segment's end")
        << toQ(snapshot(
               [](PickleBuilder& p) {
                   segment(p, 0, 1 << 20, 4096, {{(1 << 20) + 3584, 1024}});
               },
               noTrace))
        << "lies outside its segment" << 1 << 200;
    QTest::newRow("overlapping segments")
        << toQ(snapshot(
               [](PickleBuilder& p) {
                   segment(p, 0, 1 << 20, 1 << 21, {});
                   segment(p, 0, 1 << 21, 1 << 21, {});
               },
               noTrace))
        << "device 0: the segment at 0x100000 (2097152 bytes) overlaps the one at 0x200000" << 1 << 200;
    QTest::newRow("device 2^31")
        << toQ(snapshot([](PickleBuilder& p) { segment(p, int64_t(1) << 31, 1 << 20, 4096, {}); }, noTrace))
        << "segment 0 names device 2147483648 (device ordinals are 0 to 1023)" << 1 << 200;
    QTest::newRow("device -1") << toQ(snapshot([](PickleBuilder& p) { segment(p, -1, 1 << 20, 4096, {}); },
                                               noTrace))
                               << "segment 0 names device -1" << 1 << 200;
}

// AddressSanitizer's shadow memory and quarantine roughly double a process's peak: the bounds scale.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSanitizerFactor = 3;
#else
constexpr int kSanitizerFactor = 1;
#endif

void TestPickleHostile::refusedWithinBounds() {
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    QFETCH(int, maxInputKiB);
    QFETCH(int, maxRssMiB);
    QVERIFY2(input.size() <= maxInputKiB * 1024, qPrintable(QString::number(input.size())));
    const Bytes bytes(input.begin(), input.end());
    const ChildRun r = loadInChild(bytes);
    qInfo("%lld bytes: %.2f s, peak RSS %ld MiB: %s", static_cast<long long>(bytes.size()), r.seconds,
          r.peakRssKiB / 1024, r.error.c_str());
    QVERIFY2(QString::fromStdString(r.error).contains(message), r.error.c_str());
    // Generous bounds that still tell a refusal from the hang or the gigabytes these inputs caused.
    QVERIFY2(r.seconds < 10, qPrintable(QString::number(r.seconds)));
    QVERIFY2(r.peakRssKiB < long(maxRssMiB) * 1024 * kSanitizerFactor,
             qPrintable(QString::number(r.peakRssKiB)));
}

void TestPickleHostile::budgetIsNamedInTheMessage() {
    // A plausible trace of 200,000 entries (~9 MB of pickle) against a 4 MiB budget.
    PickleBuilder p;
    p.proto(4).emptyDict().mark().str("segments").emptyList().str("device_traces").emptyList().mark();
    p.emptyList().mark();
    for (int i = 0; i < 200000; ++i)
        entry(p, "alloc", (int64_t(1) << 30) + int64_t(i) * 512, 512, 1700000000000000 + i);
    const Bytes bytes = p.appends().appends().setitems().stop().bytes;
    const ChildRun r = loadInChild(bytes, 4ull << 20);
    QVERIFY2(
        r.error.find("this file would need more than 4 MiB of memory; raise --max-memory if you trust it") !=
            std::string::npos,
        r.error.c_str());
    QVERIFY2(loadInChild(bytes, 1ull << 30).error.empty(), "the same file within a 1 GiB budget must load");
}

void TestPickleHostile::declaredZstdSizeIsCheckedFirst() {
    // 4 GiB of zeros whose frame header says so: refused before decompressing, in milliseconds.
    const ChildRun r = loadInChild(zstdZeros(4ull << 30, true));
    QVERIFY2(r.error.find("expands more than 256 times") != std::string::npos, r.error.c_str());
    QVERIFY2(r.peakRssKiB < 200 * 1024 * kSanitizerFactor, qPrintable(QString::number(r.peakRssKiB)));
    // A size within the ratio but over the budget names the budget.
    Bytes pickle = manyDevices(1);
    Bytes z(ZSTD_compressBound(pickle.size()));
    z.resize(ZSTD_compress(z.data(), z.size(), pickle.data(), pickle.size(), 1));
    QVERIFY2(loadInChild(z, 16).error.find("would need more than 16 bytes of memory") != std::string::npos,
             loadInChild(z, 16).error.c_str());
}

void TestPickleHostile::budgetParsing() {
    QCOMPARE(MemoryBudget::parse("8G"), std::optional<uint64_t>(8ull << 30));
    QCOMPARE(MemoryBudget::parse("512MiB"), std::optional<uint64_t>(512ull << 20));
    QCOMPARE(MemoryBudget::parse("1.5g"), std::optional<uint64_t>(3ull << 29));
    QCOMPARE(MemoryBudget::parse("4096"), std::optional<uint64_t>(4096));
    QCOMPARE(MemoryBudget::parse("lots"), std::nullopt);
    QCOMPARE(MemoryBudget::parse("-1G"), std::nullopt);
    QCOMPARE(MemoryBudget::parse("8X"), std::nullopt);
    QCOMPARE(MemoryBudget::describe(11ull << 30), std::string("11 GiB"));
    const uint64_t machine = MemoryBudget::machineDefault();
    QVERIFY(machine > 0 &&
            machine <= uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE)) / 2);
}

void TestPickleHostile::cliTakesMaxMemory() {
    const QString sample = QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/leak_list.pickle.zst");
    auto run = [&](const QStringList& args) {
        QProcess p;
        p.start(QStringLiteral(VRAMSCOPE_CLI), args);
        p.waitForFinished(60000);
        return std::pair{p.exitCode(), QString::fromUtf8(p.readAllStandardError())};
    };
    const auto [rc, err] = run({"summary", sample, "--max-memory", "64K"});
    QCOMPARE(rc, 2);
    QVERIFY2(err.contains("would need more than 64.0 KiB") ||
                 err.contains("would need more than 65536 bytes"),
             qPrintable(err));
    QVERIFY2(err.contains("raise --max-memory if you trust it") && err.count('\n') == 1, qPrintable(err));
    QCOMPARE(run({"summary", sample, "--max-memory=1G"}).first, 0);
    QCOMPARE(run({"summary", sample, "--max-memory", "lots"}).first, 2);
}

void TestPickleHostile::fewDevicesStillLoad() {
    // The bound is the device count, not the shape: 1024 devices sharing one trace load, with every copy.
    const Bytes bytes = manyDevices(1024);
    const auto c = loadSnapshotBytes(bytes);
    QCOMPARE(c->devices.size(), size_t(1024));
    QCOMPARE(c->devices[1023].device, 1023);
    QCOMPARE(c->devices[1023].eventCount(), size_t(1));
    QCOMPARE(c->devices[1023].size[0], uint64_t(512));
}

QTEST_APPLESS_MAIN(TestPickleHostile)
#include "tst_pickle_hostile.moc"
