// The CUPTI agent's recorder without a GPU: operations with real backtraces go in, a .vscap comes out
// that vramscope reads exactly (replay == the agent's own final book), names the leaking function,
// joins mappings like PyTorch's expandable segments, counts drops; the injection library refuses
// clearly when it cannot record.
#include "NativeRecorder.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/LeakDiagnosis.h"
#include "io/CaptureFile.h"

#include <QTemporaryDir>
#include <QtTest>

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace vs;

extern "C" __attribute__((noinline, visibility("default"))) void leakyAllocation(cupti::NativeRecorder& r,
                                                                                 uint64_t addr) {
    void* pcs[cupti::NativeRecorder::kMaxFrames];
    const int n = backtrace(pcs, cupti::NativeRecorder::kMaxFrames);
    r.allocated(addr, 1 << 20, 0, pcs, n);
}

extern "C" __attribute__((noinline, visibility("default"))) void temporaryAllocation(cupti::NativeRecorder& r,
                                                                                     uint64_t addr) {
    void* pcs[cupti::NativeRecorder::kMaxFrames];
    const int n = backtrace(pcs, cupti::NativeRecorder::kMaxFrames);
    r.allocated(addr, 3 << 20, 0, pcs, n);
    r.freed(addr, 0, pcs, n);
}

class TestNativeRecorder : public QObject {
    Q_OBJECT
  private slots:
    void leakIsReadExactlyAndNamed();
    void symbolizeNamesExportedFunctions();
    void mappingsJoinLikeExpandableSegments();
    void fullBufferDropsAreReported();
    void injectionRefusesUnwritableOutput();
    void gpuCapturesShowTheLeakAndPyTorchsReserved();
    void liveViewerGetsTheFileBytes();
    void stalledViewerIsDroppedNotWaitedFor();

  private:
    std::unique_ptr<Capture> record(const std::function<void(cupti::NativeRecorder&)>& f,
                                    size_t maxBuffered = 1 << 20) {
        const QString path = dir_.filePath("r.vscap");
        FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
        {
            cupti::NativeRecorder r(out, maxBuffered);
            f(r);
            r.close();
        }
        std::fclose(out);
        return loadCaptureFile(path.toStdString(), {});
    }
    QTemporaryDir dir_;
};

void TestNativeRecorder::leakIsReadExactlyAndNamed() {
    auto c = record([](cupti::NativeRecorder& r) {
        for (uint64_t i = 0; i < 30; ++i) {
            temporaryAllocation(r, 0x7f0000000000 + i * (8 << 20));
            leakyAllocation(r, 0x7f1000000000 + i * (2 << 20));
        }
    });
    QCOMPARE(c->devices.size(), size_t(1));
    QCOMPARE(c->devices[0].eventCount(), size_t(30 * (5 + 2))); // temp: 2 + 3 events; leak: 2
    const auto a = CaptureAnalysis::analyse(std::move(c));
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    const auto s = a->summary(0);
    QCOMPARE(s.final.allocated, int64_t(30) << 20);
    QCOMPARE(s.final.reserved, int64_t(30) << 20);
    QCOMPARE(s.peak.allocated,
             (int64_t(29) << 20) + (int64_t(3) << 20)); // the 30th temporary beside 29 leaks
    const auto rep = diagnoseLeaks(*a, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    const auto& frames = a->capture().stacks.frames(rep.groups.front().stack);
    QVERIFY(!frames.empty());
    QCOMPARE(QString::fromUtf8(a->capture().strings.text(a->capture().frames[frames[0]].name).data()),
             QString("leakyAllocation"));
    QVERIFY(QString::fromStdString(rep.nextStep).contains("missing free"));
}

void TestNativeRecorder::symbolizeNamesExportedFunctions() {
    const auto f =
        cupti::symbolize(reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(&leakyAllocation) + 8));
    QCOMPARE(QString::fromStdString(f.function), QString("leakyAllocation"));
    QVERIFY(QString::fromStdString(f.module).contains("tst_native_recorder"));
    QVERIFY(f.offset > 0);
    QCOMPARE(QString::fromStdString(cupti::symbolize(reinterpret_cast<void*>(0x10)).function), QString("??"));
}

void TestNativeRecorder::mappingsJoinLikeExpandableSegments() {
    auto c = record([](cupti::NativeRecorder& r) {
        void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
        for (uint64_t i = 0; i < 4; ++i) r.mapped(0x300000000 + i * (20 << 20), 20 << 20, pcs, 1);
        r.unmapped(0x300000000 + 3 * (20 << 20), 20 << 20, pcs, 1);
    });
    QCOMPARE(c->devices[0].finalSegments.size(), size_t(1));
    QCOMPARE(c->devices[0].finalSegments[0].totalSize, uint64_t(60) << 20);
    QVERIFY(c->devices[0].finalSegments[0].expandable);
    const auto a = CaptureAnalysis::analyse(std::move(c));
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    QCOMPARE(a->summary(0).final.reserved, int64_t(60) << 20);
    QCOMPARE(a->summary(0).peak.reserved, int64_t(80) << 20);
}

void TestNativeRecorder::fullBufferDropsAreReported() {
    auto c = record(
        [](cupti::NativeRecorder& r) {
            void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
            for (uint64_t i = 0; i < 5000; ++i) r.allocated(0x1000000 + i * 4096, 512, 0, pcs, 1);
        },
        1024); // far fewer than 10,000 events between two flushes
    bool warned = false;
    for (const auto& w : c->warnings) warned |= w.find("dropped") != std::string::npos;
    QVERIFY(warned);
}

void TestNativeRecorder::injectionRefusesUnwritableOutput() {
    void* lib = dlopen(VRAMSCOPE_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) QSKIP("libvramscope_cupti.so is not built here (no CUPTI) or cannot load libcupti");
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    QVERIFY(init);
    qputenv("VRAMSCOPE_OUTPUT", "/nonexistent-dir/x.vscap");
    QCOMPARE(init(), 0);                    // refused with a message on stderr, the program runs unrecorded
    if (!QFile::exists("/dev/nvidiactl")) { // no driver (CI): CUPTI cannot subscribe; no empty file left
        const QString out = dir_.filePath("nodriver.vscap");
        qputenv("VRAMSCOPE_OUTPUT", QFile::encodeName(out));
        QCOMPARE(init(), 0);
        QVERIFY(!QFile::exists(out));
    }
    qunsetenv("VRAMSCOPE_OUTPUT");
}

// Recorded by the agent on the H200 (samples/cuda/README.md).
void TestNativeRecorder::gpuCapturesShowTheLeakAndPyTorchsReserved() {
    const std::string dir = VRAMSCOPE_SAMPLES_DIR "/../cuda/";
    const auto leak = CaptureAnalysis::open(dir + "leak.vscap");
    const auto rep = diagnoseLeaks(*leak, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(rep.groups.front().count, uint64_t(49)); // the 50th is the window's edge
    std::string names;
    for (FrameId f : leak->capture().stacks.frames(rep.groups.front().stack))
        names.append(leak->capture().strings.text(leak->capture().frames[f].name)).append(" ");
    QVERIFY2(names.find("cache_result work_step main") != std::string::npos, names.c_str());
    QCOMPARE(CaptureAnalysis::open(dir + "torch_plain.vscap")->summary(0).final.reserved, int64_t(440401920));
    QCOMPARE(CaptureAnalysis::open(dir + "torch_expandable.vscap")->summary(0).final.reserved,
             int64_t(419430400));
    QCOMPARE(diagnoseLeaks(*CaptureAnalysis::open(dir + "pool.vscap"), 0).kind, LeakKind::Leak);
}

namespace {
// A listening Unix socket, as Capture > Listen opens; accept() on demand.
struct Listener {
    int fd = -1;
    std::string path;
    explicit Listener(const std::string& p) : path(p) {
        fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::memcpy(a.sun_path, p.c_str(), p.size() + 1);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(fd, 1);
    }
    ~Listener() { ::close(fd); }
};
} // namespace

void TestNativeRecorder::liveViewerGetsTheFileBytes() {
    Listener l(dir_.filePath("live.sock").toStdString());
    std::string received;
    std::thread viewer([&] {
        const int c = ::accept(l.fd, nullptr, nullptr);
        char buf[4096];
        for (ssize_t n; (n = ::recv(c, buf, sizeof buf, 0)) > 0;) received.append(buf, size_t(n));
        ::close(c);
    });
    std::string error;
    auto live = cupti::LiveSocket::connect(l.path, error);
    QVERIFY2(live, error.c_str());
    const QString path = dir_.filePath("live.vscap");
    FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
    {
        cupti::NativeRecorder r(out, 1 << 20, std::move(live));
        for (uint64_t i = 0; i < 100; ++i) leakyAllocation(r, 0x7f2000000000 + i * (2 << 20));
        r.close();
    } // the recorder (and its socket) is gone: the viewer sees the end of the stream
    std::fclose(out);
    viewer.join();
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QByteArray::fromStdString(received), f.readAll());
}

void TestNativeRecorder::stalledViewerIsDroppedNotWaitedFor() {
    Listener l(dir_.filePath("stalled.sock").toStdString()); // never accepts, never reads
    std::string error;
    auto live = cupti::LiveSocket::connect(l.path, error, 4096);
    QVERIFY(live);
    auto* socket = live.get();
    const QString path = dir_.filePath("stalled.vscap");
    FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
    cupti::NativeRecorder r(out, 1 << 20, std::move(live));
    std::string noise(1 << 20, '\0'); // incompressible megabytes: far beyond the socket's buffers
    uint64_t x = 88172645463325252ull;
    for (char& ch : noise) x ^= x << 13, x ^= x >> 7, x ^= x << 17, ch = char(x);
    for (uint64_t i = 0; i < 20000; ++i) {
        void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
        r.allocated(0x7f3000000000 + i * 4096, 512, 0, pcs, 1);
        if (i % 4000 == 0) r.meta("noise", noise), r.flush();
    }
    r.close();
    QVERIFY(!socket->open()); // dropped, while the file got everything
    std::fclose(out);
    QCOMPARE(loadCaptureFile(path.toStdString(), {})->devices[0].eventCount(), size_t(40000));
}

QTEST_GUILESS_MAIN(TestNativeRecorder)
#include "tst_native_recorder.moc"
