// The CUPTI agent's recorder without a GPU: operations with real backtraces go in, a .vscap comes out
// that vramscope reads exactly (replay == the agent's own final book), names the leaking function,
// joins mappings like PyTorch's expandable segments, counts drops; the injection library refuses
// clearly when it cannot record.
#include "NativeRecorder.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/growth/LeakDiagnosis.h"
#include "analysis/stacks/FrameFilter.h"
#include "io/CaptureFile.h"
#include "io/LoadError.h"
#include "io/VscapFormat.h"
#include "load/OpenAnalysis.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>

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

// Internal linkage, not exported: only the full symbol table (libdwfl) names it.
static __attribute__((noinline)) int hiddenCaller(void** pcs) {
    const int n = backtrace(pcs, cupti::NativeRecorder::kMaxFrames); // HIDDEN-CALLER-LINE
    asm volatile("" ::: "memory");                                   // not a tail call
    return n;
}

// An inlined helper: DWARF keeps it as its own frame, called from its caller's line. (A depth
// unlike hiddenCaller's, so that the linker does not fold the two identical bodies into one.)
static inline __attribute__((always_inline)) int inlinedHelper(void** pcs) {
    return backtrace(pcs, 31); // INLINED-HELPER-LINE
}
static __attribute__((noinline)) int inliningCaller(void** pcs) {
    const int n = inlinedHelper(pcs); // INLINING-CALLER-LINE
    asm volatile("" ::: "memory");
    return n;
}

class TestNativeRecorder : public QObject {
    Q_OBJECT
  private slots:
    void leakIsReadExactlyAndNamed();
    void symbolizeNamesExportedFunctions();
    void symbolizeNamesStaticFunctionsWithSourceLines();
    void inlinedFunctionsAreFramesOfTheirOwn();
    void moduleLoadedLaterIsSymbolized();
    void modulesAreDescribedWithBuildIds();
    void nativeFramesOfCudaAreInternal();
    void compilerClonesReadAsTheirFunction();
    void signaturesShortenForSentences();
    void poolCacheMakesReservedThePoolSize();
    void poolKeptSegmentsReachTheFinalState();
    void poolLedgerHoldsOnRandomWorkloads();
    void poolOperationsWaitForTheirSample();
    void unmappedPhysicalMemoryIsReported();
    void mappingsJoinLikeExpandableSegments();
    void devicesAreRecordedApart();
    void fullBufferDropsAreReported();
    void injectionRefusesUnwritableOutput();
    void gpuCapturesShowTheLeakAndPyTorchsReserved();
    void liveViewerGetsTheFileBytes();
    void idleViewerGetsKeepalives();
    void stalledViewerIsDroppedNotWaitedFor();
    void listenerOfAnotherUserGetsNothing();

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

namespace {
// The first frame past backtrace() itself (under ASan, backtrace's interceptor comes first).
void* ownFrame(void** pcs, int n) {
    for (int i = 0; i < n; ++i)
        if (!cupti::symbolize(pcs[i]).function.starts_with("__interceptor_")) return pcs[i];
    return nullptr;
}

int lineOf(const std::string& file, const char* marker) {
    QFile src(QString::fromStdString(file));
    if (!src.open(QIODevice::ReadOnly)) return -1;
    const auto lines = src.readAll().split('\n');
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].contains(marker)) return i + 1;
    return -1;
}
} // namespace

void TestNativeRecorder::symbolizeNamesStaticFunctionsWithSourceLines() {
    if (!cupti::Symbolizer::hasDebugInfoSupport()) QSKIP("built without libdw");
    void* pcs[cupti::NativeRecorder::kMaxFrames];
    const int n = hiddenCaller(pcs);
    const auto f = cupti::symbolize(ownFrame(pcs, n)); // the return address into hiddenCaller
    QVERIFY2(QString::fromStdString(f.function).startsWith("hiddenCaller("), f.function.c_str());
    QVERIFY2(QString::fromStdString(f.file).endsWith("tst_native_recorder.cpp"), f.file.c_str());
    QCOMPARE(f.line, lineOf(f.file, "HIDDEN-CALLER-LINE"));
}

void TestNativeRecorder::inlinedFunctionsAreFramesOfTheirOwn() {
    if (!cupti::Symbolizer::hasDebugInfoSupport()) QSKIP("built without libdw");
    void* pcs[cupti::NativeRecorder::kMaxFrames];
    const int n = inliningCaller(pcs);
    cupti::Symbolizer s;
    const auto frames = s.resolveAll(ownFrame(pcs, n));
    QCOMPARE(frames.size(), size_t(2));
    QVERIFY2(QString::fromStdString(frames[0].function).startsWith("inlinedHelper"),
             frames[0].function.c_str());
    QCOMPARE(frames[0].line, lineOf(frames[0].file, "INLINED-HELPER-LINE"));
    QVERIFY2(QString::fromStdString(frames[1].function).startsWith("inliningCaller"),
             frames[1].function.c_str());
    QCOMPARE(frames[1].line, lineOf(frames[1].file, "INLINING-CALLER-LINE"));
    QVERIFY(frames[1].file.ends_with("tst_native_recorder.cpp"));
}

void TestNativeRecorder::nativeFramesOfCudaAreInternal() {
    const auto internal = FrameKind::Internal, user = FrameKind::User;
    QCOMPARE(classifyNativeFrame("cudaMalloc<float>",
                                 "/usr/local/cuda/targets/x86_64-linux/include/cuda_runtime.h"),
             internal); // inlined from the toolkit's header
    QCOMPARE(classifyNativeFrame("cudaMallocAsync", "/opt/app/bin/app+0x736cd"), internal); // static runtime
    QCOMPARE(classifyNativeFrame("cuMemAlloc_v2", "/usr/lib/x86_64-linux-gnu/libcuda.so.1+0x1234"), internal);
    QCOMPARE(classifyNativeFrame("libcudart_static_5382377d", "/opt/app/bin/app+0x3dcee"), internal);
    QCOMPARE(classifyNativeFrame("??", "/opt/app/bin/app+0x10"), internal);
    QCOMPARE(classifyNativeFrame("__libc_start_call_main", "/lib/x86_64-linux-gnu/libc.so.6+0x271ca"),
             internal);
    QCOMPARE(classifyNativeFrame("cache_result", "/src/leak.cu"), user);
    QCOMPARE(classifyNativeFrame("cudaHelpersOfMine", "/src/mine.cu"), user); // the user's own source
    // a framework's or library's own code above the CUDA call: library code, not the user's
    QCOMPARE(classifyNativeFrame("c10::cuda::CUDACachingAllocator::malloc", "/torch/lib/libc10_cuda.so+0x99"),
             FrameKind::Python);
    QCOMPARE(classifyNativeFrame("cublasCreate_v2", "/usr/lib/libcublas.so.13+0x99"), FrameKind::Python);
    QCOMPARE(classifyNativeFrame("my_op", "/home/me/ext/build/my_ext.so+0x10"), user);
}

void TestNativeRecorder::signaturesShortenForSentences() {
    QCOMPARE(
        withoutParameters(
            "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block("
            "c10::cuda::CUDACachingAllocator::Native::(anonymous namespace)::AllocParams&, bool)"),
        std::string_view("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::alloc_block"));
    QCOMPARE(withoutParameters("ns::A::f(std::function<void (int)>) const"), std::string_view("ns::A::f"));
    QCOMPARE(withoutParameters("cache_result"), std::string_view("cache_result"));
    QCOMPARE(withoutParameters("(anonymous namespace)::g()"), std::string_view("(anonymous namespace)::g"));
    QCOMPARE(withoutParameters("leak_hook"), std::string_view("leak_hook")); // Python names as they are
}

void TestNativeRecorder::compilerClonesReadAsTheirFunction() {
    QCOMPARE(cupti::withoutCloneSuffixes("keep_async.constprop.0"), std::string("keep_async"));
    QCOMPARE(cupti::withoutCloneSuffixes("work.part.0.isra.0"), std::string("work"));
    QCOMPARE(cupti::withoutCloneSuffixes("main.cold"), std::string("main"));
    QCOMPARE(cupti::withoutCloneSuffixes("ns::f(int) [clone .isra.0] [clone .constprop.1]"),
             std::string("ns::f(int)"));
    QCOMPARE(cupti::withoutCloneSuffixes("plain_function"), std::string("plain_function"));
    QCOMPARE(cupti::withoutCloneSuffixes(".part.0"), std::string(".part.0")); // nothing left to name: kept
}

// A shared library built by this test's build and loaded after the symbolizer read the module map
// (as a program dlopens a CUDA library mid-run): the symbolizer reads the map again on the miss.
void TestNativeRecorder::moduleLoadedLaterIsSymbolized() {
    if (!cupti::Symbolizer::hasDebugInfoSupport()) QSKIP("built without libdw");
    cupti::Symbolizer s;
    void* pcs[cupti::NativeRecorder::kMaxFrames];
    QVERIFY(s.resolve(reinterpret_cast<char*>(&leakyAllocation) + 4).function ==
            "leakyAllocation"); // map read
    void* plugin = dlopen(VRAMSCOPE_SYMBOLIZER_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(plugin, dlerror());
    auto entry = reinterpret_cast<int (*)(void**, int)>(dlsym(plugin, "pluginEntry"));
    QVERIFY(entry);
    const int n = entry(pcs, cupti::NativeRecorder::kMaxFrames);
    const auto f = s.resolve(ownFrame(pcs, n));
    QVERIFY2(f.function.starts_with("pluginInner"), f.function.c_str());
    QVERIFY2(f.module.ends_with("symbolizer_plugin.so"), f.module.c_str());
    QCOMPARE(f.line, lineOf(f.file, "PLUGIN-LINE"));
    QVERIFY(QRegularExpression("^[0-9a-f]{40}$").match(QString::fromStdString(f.buildId)).hasMatch());
    dlclose(plugin);
}

void TestNativeRecorder::modulesAreDescribedWithBuildIds() {
    auto c = record([](cupti::NativeRecorder& r) { leakyAllocation(r, 0x7f4000000000); });
    bool self = false;
    for (const auto& [k, v] : c->meta)
        if (k == "module" && v.find("tst_native_recorder") != std::string::npos) {
            const auto parts = QString::fromStdString(v).split(' ');
            QCOMPARE(parts.size(), 3);
            QVERIFY(parts[0].startsWith("0x"));
            if (cupti::Symbolizer::hasDebugInfoSupport()) // gcc links with --build-id: a 160-bit SHA-1
                QVERIFY2(QRegularExpression("^[0-9a-f]{40}$").match(parts[1]).hasMatch(), v.c_str());
            self = true;
        }
    QVERIFY(self);
}

namespace {
constexpr uint64_t kPool = 0x7f5000000000;
void poolAlloc(cupti::NativeRecorder& r, uint64_t addr, uint64_t size, uint32_t corr, uint64_t poolSize) {
    void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
    r.allocated(addr, size, 0x99, pcs, 1, corr);
    r.poolSample({corr, kPool, poolSize});
}
void poolFree(cupti::NativeRecorder& r, uint64_t addr, uint32_t corr, uint64_t poolSize) {
    void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
    r.freed(addr, 0x99, pcs, 1, corr);
    r.poolSample({corr, kPool, poolSize});
}
} // namespace

// A pool that keeps what is freed (release threshold above use): reserved follows the pool's size.
void TestNativeRecorder::poolCacheMakesReservedThePoolSize() {
    auto c = record([](cupti::NativeRecorder& r) {
        poolAlloc(r, kPool, 8 << 20, 1, 32 << 20);               // the pool maps 32 MiB for 8
        poolAlloc(r, kPool + (8 << 20), 1000, 2, 32 << 20);      // 1000 -> a 1024-byte segment
        poolFree(r, kPool, 3, 32 << 20);                         // kept by the pool
        poolAlloc(r, kPool, 8 << 20, 4, 32 << 20);               // handed out again in place
        poolFree(r, kPool, 5, 32 << 20);                         // kept again
        poolAlloc(r, kPool + (16 << 20), 40 << 20, 6, 64 << 20); // grows
        const int64_t later =
            std::chrono::duration_cast<std::chrono::microseconds>(
                (std::chrono::system_clock::now() + std::chrono::hours(1)).time_since_epoch())
                .count(); // after every event (a time past 2200 is refused: TimeRange.h)
        r.poolChanged({later, kPool, 48 << 20}); // trimmed at the end
    });
    const auto a = CaptureAnalysis::analyse(std::move(c));
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    const auto& t = a->capture().devices[0];
    const auto& rep = a->replay(0);
    // Reserved from the first allocation on, repeats folded: the frees and the reuse move nothing; the
    // 1 KiB and 40 MiB segments are carved out of the cache (a dip as the cache shrinks first: never a
    // false peak); the trim gives back the kept 8 MiB, then cache.
    std::vector<int64_t> reserved;
    for (size_t i = size_t(std::find(t.action.begin(), t.action.end(), Action::Alloc) - t.action.begin());
         i < t.eventCount(); ++i)
        if (reserved.empty() || reserved.back() != rep.reserved[i]) reserved.push_back(rep.reserved[i]);
    QCOMPARE(reserved, (std::vector<int64_t>{32 << 20, (32 << 20) - 1024, 32 << 20, 24 << 20, 64 << 20,
                                             56 << 20, 48 << 20}));
    QCOMPARE(std::count(t.action.begin(), t.action.end(), Action::SegmentAlloc), 3L); // the reuse made none
    QCOMPARE(a->summary(0).final.allocated, int64_t(1024) + (int64_t(40) << 20));     // whole blocks
    QCOMPARE(rep.peak.reserved, int64_t(64) << 20);
    bool cacheSegment = false; // the pool's cache is a free segment at a synthetic address
    for (const auto& s : t.finalSegments)
        cacheSegment |= s.address == cupti::NativeRecorder::kPoolCacheBase &&
                        s.totalSize == (uint64_t(48) << 20) - 1024 - (uint64_t(40) << 20) &&
                        s.blocks.size() == 1 && s.blocks[0].state == BlockState::Inactive;
    QVERIFY(cacheSegment);
}

// What a pool keeps at the end is in the final state: its freed allocations as free segments at their
// addresses, its cache; a plain allocation over a kept block's address replaces it.
void TestNativeRecorder::poolKeptSegmentsReachTheFinalState() {
    auto c = record([](cupti::NativeRecorder& r) {
        poolAlloc(r, kPool, 8 << 20, 1, 16 << 20);
        poolAlloc(r, kPool + (8 << 20), 2 << 20, 2, 16 << 20);
        poolFree(r, kPool, 3, 16 << 20);
        poolFree(r, kPool + (8 << 20), 4, 16 << 20);
        void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
        r.allocated(kPool + (8 << 20), 1 << 20, 0, pcs, 1); // the pool gave it back; cudaMalloc reuses it
    });
    const auto a = CaptureAnalysis::analyse(std::move(c));
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    QVERIFY(a->replay(0).finalMatchesSnapshot);
    QCOMPARE(a->summary(0).final.reserved, (int64_t(16) << 20) - (int64_t(2) << 20) + (int64_t(1) << 20));
    size_t kept = 0;
    for (const auto& s : a->capture().devices[0].finalSegments)
        kept += s.address == kPool && s.totalSize == (uint64_t(8) << 20) && !s.expandable &&
                s.blocks[0].state == BlockState::Inactive;
    QCOMPARE(kept, size_t(1));
}

// Random pool workloads (seeded): allocations of a few sizes at a few slots, so that blocks are kept,
// reused in place, overlapped by other sizes and released by shrinking pools. Whatever the order, the
// replay stays exact, never peaks above the largest pool size reported (no false peak), and ends at
// the last one.
void TestNativeRecorder::poolLedgerHoldsOnRandomWorkloads() {
    for (uint32_t seed = 1; seed <= 20; ++seed) {
        uint64_t x = seed * 0x9E3779B97F4A7C15ull;
        auto next = [&x](uint64_t n) { return x ^= x << 13, x ^= x >> 7, x ^= x << 17, x % n; };
        uint64_t maxPool = 0, lastPool = 0;
        auto c = record([&](cupti::NativeRecorder& r) {
            std::map<uint64_t, uint64_t> live; // addr -> segment bytes
            uint64_t liveBytes = 0;
            uint32_t corr = 0;
            for (int i = 0; i < 2000; ++i) {
                const uint64_t slot = kPool + next(16) * (4 << 20), size = (next(8) + 1) << 19; // 0.5-4 MiB
                auto overlaps = [&] {
                    auto it = live.upper_bound(slot + size - 1);
                    return it != live.begin() && std::prev(it)->first + std::prev(it)->second > slot;
                };
                // the pool holds at least what is live, sometimes more
                const bool freeOne = !live.empty() && next(2);
                if (freeOne) {
                    auto it = std::next(live.begin(), long(next(live.size())));
                    liveBytes -= it->second;
                    lastPool = liveBytes + next(4) * (2 << 20);
                    poolFree(r, it->first, ++corr, lastPool);
                    live.erase(it);
                } else if (!overlaps()) {
                    liveBytes += size;
                    lastPool = liveBytes + next(4) * (2 << 20);
                    poolAlloc(r, slot, size, ++corr, lastPool);
                    live[slot] = size;
                }
                maxPool = std::max(maxPool, lastPool);
            }
        });
        const auto a = CaptureAnalysis::analyse(std::move(c));
        QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
        QVERIFY(a->replay(0).finalMatchesSnapshot);
        QCOMPARE(a->summary(0).final.reserved, int64_t(lastPool));
        QCOMPARE(a->replay(0).peak.reserved, int64_t(maxPool));
    }
}

// A pool operation is written only once its activity record has come (or at the end).
void TestNativeRecorder::poolOperationsWaitForTheirSample() {
    const QString path = dir_.filePath("wait.vscap");
    FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
    cupti::NativeRecorder r(out);
    void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
    r.allocated(kPool, 4 << 20, 0x99, pcs, 1, 11);
    r.allocated(0x7f6000000000, 1 << 20, 0, pcs, 1); // behind it: waits too, order is kept
    r.flush();
    QVERIFY_THROWS_EXCEPTION(vs::LoadError, loadCaptureFile(path.toStdString(), {})); // no events yet
    r.poolSample({11, kPool, 16 << 20});
    r.flush();
    const auto partial = loadCaptureFile(path.toStdString(), {});
    QCOMPARE(partial->devices[0].eventCount(), size_t(2 + 1 + 2)); // the pool pair, its cache, the plain pair
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    r.allocated(0x7f6100000000, 2 << 20, 0x99, pcs, 1, 12); // from an imported pool: no size to know
    r.poolSample({12, 0x7f6200000000, 0, false});
    r.poolChanged({1, kPool, 0}); // destroyed; stamped long before what is already written
    r.close();
    std::fclose(out);
    const auto a = openAnalysis(path.toStdString());
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    QCOMPARE(a->summary(0).final.reserved, int64_t(4 + 1 + 2) << 20); // the cache went with the pool
    QCOMPARE(a->summary(0).peak.reserved, int64_t(16 + 1) << 20);     // the older destruction came first
    const auto& times = a->capture().devices[0].timeUs;
    QVERIFY(std::is_sorted(times.begin(), times.end()));
    QVERIFY(times.back() - times.front() >= 3000); // the operations' own moments, not one for all
}

void TestNativeRecorder::unmappedPhysicalMemoryIsReported() {
    auto c = record([](cupti::NativeRecorder& r) {
        void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
        r.physicalCreated(1, 2 << 20), r.physicalCreated(2, 2 << 20), r.physicalCreated(3, 2 << 20);
        r.mapped(0x400000000, 2 << 20, pcs, 1, 1); // mapped: shown as reserved
        r.mapped(0x400200000, 2 << 20, pcs, 1, 2);
        r.unmapped(0x400200000, 2 << 20, pcs, 1);
        r.physicalReleased(2); // unmapped and released: gone
        // 3: created, never mapped, never released
        r.addressReserved(0x400000000, 16 << 20), r.addressReserved(0x500000000, 8 << 20);
        r.addressFreed(0x500000000);
    });
    QCOMPARE(c->warnings.size(), size_t(1));
    bool addressSpace = false; // reported, but as address space: no warning, no reserved bytes
    for (const auto& [k, v] : c->meta)
        addressSpace |= k == "address_space_reserved" && v.starts_with("16777216 bytes in 1 range(s)");
    QVERIFY(addressSpace);
    QVERIFY2(c->warnings[0].find("2097152 bytes of physical memory in 1 cuMemCreate handle") == 0,
             c->warnings[0].c_str());
}

// A multi-GPU program: each device its own trace, final state and Device record.
void TestNativeRecorder::devicesAreRecordedApart() {
    auto c = record([](cupti::NativeRecorder& r) {
        void* pcs[1] = {reinterpret_cast<void*>(&leakyAllocation)};
        r.deviceInfo(0, "GPU zero", 80ull << 30);
        r.deviceInfo(1, "GPU one", 141ull << 30);
        for (uint64_t i = 0; i < 4; ++i) {
            r.allocated(0x7f0000000000 + i * (4 << 20), 3 << 20, 0, pcs, 1, 0, 0);
            r.allocated(0x7f8000000000 + i * (8 << 20), 5 << 20, 0, pcs, 1, 0, 1);
        }
        r.freed(0x7f0000000000, 0, pcs, 1, 0, 0);
        r.mapped(0x7fa000000000, 2 << 20, pcs, 1, 0, 1);
    });
    QCOMPARE(c->devices.size(), size_t(2));
    QCOMPARE(c->deviceInfo.size(), size_t(2));
    QCOMPARE(QString::fromStdString(c->deviceInfo[1].name), QString("GPU one"));
    const auto a = CaptureAnalysis::analyse(std::move(c));
    QVERIFY2(a->warnings().empty(), a->warnings().empty() ? "" : a->warnings().front().c_str());
    for (size_t i = 0; i < 2; ++i) QVERIFY(a->replay(i).finalMatchesSnapshot);
    const size_t d0 = a->capture().devices[0].device == 0 ? 0 : 1, d1 = 1 - d0;
    QCOMPARE(a->summary(d0).final.allocated, int64_t(3) * (3 << 20));
    QCOMPARE(a->summary(d1).final.allocated, int64_t(4) * (5 << 20));
    QCOMPARE(a->summary(d1).final.reserved, int64_t(4) * (5 << 20) + (2 << 20));
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
    if (!QFile::exists(VRAMSCOPE_CUPTI_LIB)) QSKIP("libvramscope_cupti.so is not built here (no CUPTI)");
    void* lib = dlopen(VRAMSCOPE_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
    QVERIFY2(lib, dlerror()); // every symbol resolves: CUDA's loader fails silently otherwise
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

// Recorded by the agent on the H200 (samples/cuda/README.md); truth.json holds what the programs
// themselves printed meanwhile.
void TestNativeRecorder::gpuCapturesShowTheLeakAndPyTorchsReserved() {
    const std::string dir = VRAMSCOPE_SAMPLES_DIR "/../cuda/";
    QFile truthFile(QString::fromStdString(dir + "truth.json"));
    QVERIFY(truthFile.open(QIODevice::ReadOnly));
    const QJsonObject truth = QJsonDocument::fromJson(truthFile.readAll()).object();
    auto want = [&](const char* program, const char* key) {
        return int64_t(truth[program].toObject()[key].toDouble());
    };

    const auto leak = openAnalysis(dir + "leak.vscap");
    const auto& times = leak->capture().devices[0].timeUs;
    QVERIFY(times.back() - times.front() > 1000); // 50 steps with a kernel each: milliseconds
    const auto rep = diagnoseLeaks(*leak, 0);
    QCOMPARE(rep.kind, LeakKind::Leak);
    QCOMPARE(int64_t(rep.groups.front().count), want("leak", "leaked")); // the leak's region runs to the end
    std::string names;
    for (FrameId f : leak->capture().stacks.frames(rep.groups.front().stack))
        names.append(leak->capture().strings.text(leak->capture().frames[f].name)).append(" ");
    QVERIFY2(names.find("cudaMalloc<float> cache_result work_step main") != std::string::npos, names.c_str());
    // The site is the LEAK-SITE line, from DWARF through the inlined cudaMalloc<T> wrapper.
    const std::string site =
        "cache_result (leak.cu:" +
        std::to_string(lineOf(VRAMSCOPE_SAMPLES_DIR "/../cuda/leak.cu", "; // LEAK-SITE")) + ")";
    QVERIFY2(rep.summary.find(site) != std::string::npos, rep.summary.c_str());

    const auto pool = openAnalysis(dir + "pool.vscap"); // reserved == the pool's own figure
    QVERIFY(pool->warnings().empty());
    QCOMPARE(pool->summary(0).peak.reserved, want("pool", "after_loop_reserved"));
    QCOMPARE(pool->summary(0).final.reserved, want("pool", "after_trim_reserved"));
    QCOMPARE(pool->summary(0).final.allocated, want("pool", "after_loop_used"));
    const auto poolRep = diagnoseLeaks(*pool, 0);
    QCOMPARE(poolRep.kind, LeakKind::Leak);
    const std::string poolSite =
        "keep_async (pool.cu:" + // clone suffix (.constprop.0) dropped
        std::to_string(lineOf(VRAMSCOPE_SAMPLES_DIR "/../cuda/pool.cu", "; // LEAK-SITE")) + ")";
    QVERIFY2(poolRep.summary.find(poolSite) != std::string::npos, poolRep.summary.c_str());

    for (const char* torch : {"torch_plain", "torch_expandable", "torch_async"}) {
        const auto a = openAnalysis(dir + torch + ".vscap");
        QVERIFY2(a->warnings().empty(), torch);
        QCOMPARE(a->summary(0).final.reserved, want(torch, "memory_reserved"));
    }

    for (const char* two : {"torch_two_devices", "torch_two_devices_async"}) { // on a two-GPU machine
        const auto a = openAnalysis(dir + two + ".vscap");
        QVERIFY2(a->warnings().empty(), two);
        QCOMPARE(a->capture().devices.size(), size_t(2));
        QCOMPARE(a->capture().deviceInfo.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            const int ordinal = a->capture().devices[i].device;
            QCOMPARE(a->summary(i).final.reserved,
                     want(two, ("memory_reserved_" + std::to_string(ordinal)).c_str()));
            QVERIFY(a->replay(i).finalMatchesSnapshot);
        }
        QCOMPARE(QString::fromStdString(a->capture().deviceInfo[0].name), QString("NVIDIA H200"));
    }

    const auto vmm = openAnalysis(dir + "vmm.vscap");
    QCOMPARE(vmm->summary(0).final.reserved, want("vmm", "mapped_at_end"));
    QCOMPARE(vmm->summary(0).peak.reserved, want("vmm", "peak_mapped"));
    QCOMPARE(vmm->warnings().size(), size_t(1));
    QVERIFY(vmm->warnings()[0].starts_with(std::to_string(want("vmm", "created_unmapped_unreleased")) +
                                           " bytes"));
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
// A viewer at `l`: accepts one producer and keeps what it sends until the producer closes.
struct Viewer {
    explicit Viewer(const Listener& l)
        : thread([this, fd = l.fd] {
              const int c = ::accept(fd, nullptr, nullptr);
              char buf[4096];
              for (ssize_t n; (n = ::recv(c, buf, sizeof buf, 0)) > 0;) received.append(buf, size_t(n));
              ::close(c);
          }) {}
    const std::string& join() { return thread.join(), received; }
    std::string received;
    std::thread thread;
};
} // namespace

void TestNativeRecorder::liveViewerGetsTheFileBytes() {
    Listener l(dir_.filePath("live.sock").toStdString());
    Viewer viewer(l);
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
    const std::string& received = viewer.join();
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QByteArray::fromStdString(received), f.readAll());
}

// An idle program (nothing allocated for longer than the keepalive) sends the viewer empty chunks,
// and only the viewer: the live stream is the file's bytes with empty chunks between whole chunks.
void TestNativeRecorder::idleViewerGetsKeepalives() {
    Listener l(dir_.filePath("idle.sock").toStdString());
    Viewer viewer(l);
    std::string error;
    auto live = cupti::LiveSocket::connect(l.path, error);
    QVERIFY2(live, error.c_str());
    const QString path = dir_.filePath("idle.vscap");
    FILE* out = std::fopen(path.toLocal8Bit().constData(), "wb");
    {
        cupti::NativeRecorder r(out, 1 << 20, std::move(live));
        r.setKeepalive(std::chrono::milliseconds(50));
        leakyAllocation(r, 0x7f2000000000);
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(path).size() > qint64(vscap::kHeaderSize),
                                 20000);                             // symbolized, written
        std::this_thread::sleep_for(std::chrono::milliseconds(600)); // then idle: ~6 writer wake-ups
        leakyAllocation(r, 0x7f2000200000);
        r.close();
    }
    std::fclose(out);
    const std::string& received = viewer.join();
    QVERIFY(received.size() > vscap::kHeaderSize);
    std::string withoutEmpty = received.substr(0, vscap::kHeaderSize);
    size_t empty = 0;
    for (size_t pos = vscap::kHeaderSize; pos < received.size();) {
        QVERIFY(pos + vscap::kChunkHeaderSize <= received.size());
        QCOMPARE(received.compare(pos, 4, "VSCK"), 0);
        uint32_t stored = 0, raw = 0;
        std::memcpy(&stored, received.data() + pos + 8, 4);
        std::memcpy(&raw, received.data() + pos + 12, 4);
        const size_t next = pos + vscap::kChunkHeaderSize + stored;
        QVERIFY(next <= received.size());
        if (stored == 0 && raw == 0)
            ++empty;
        else
            withoutEmpty.append(received, pos, next - pos);
        pos = next;
    }
    QVERIFY2(empty >= 3, qPrintable(QString::number(empty)));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QByteArray::fromStdString(withoutEmpty), f.readAll()); // the file got none of them
    const auto capture =
        loadCaptureBytes({reinterpret_cast<const uint8_t*>(received.data()), received.size()}, {});
    QCOMPARE(capture->devices.size(), size_t(1)); // and the viewer reads the stream as a capture
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

// The agent checks who listens (SO_PEERCRED) before sending: a listener of another uid (here: we,
// while the agent is told to expect someone else) is refused with the reason and gets no byte.
void TestNativeRecorder::listenerOfAnotherUserGetsNothing() {
    Listener l(dir_.filePath("other.sock").toStdString());
    std::string error;
    QVERIFY(!cupti::LiveSocket::connect(l.path, error, 4096, long(::geteuid()) + 1));
    QVERIFY2(error.find("the listener runs as uid " + std::to_string(::geteuid())) != std::string::npos,
             error.c_str());
    const int c = ::accept(l.fd, nullptr, nullptr);
    char buf[16];
    QCOMPARE(::recv(c, buf, sizeof buf, 0), ssize_t(0)); // closed without a byte
    ::close(c);
    QVERIFY(cupti::LiveSocket::connect(l.path, error, 4096)); // our own uid: accepted
}

QTEST_GUILESS_MAIN(TestNativeRecorder)
#include "tst_native_recorder.moc"
