// libvramscope_cupti.so: loaded into any CUDA program through CUDA_INJECTION64_PATH (vramscope-cli
// run sets it up). CUPTI's driver-domain callbacks report every device allocation, free, map and
// unmap on the calling thread; the callback takes a raw backtrace and hands both to the
// NativeRecorder, which writes the .vscap file ($VRAMSCOPE_OUTPUT) from its own thread. Activity
// records (MEMORY2, MEMORY_POOL) add the sizes of stream-ordered memory pools.
#include "ActivityWalker.h"
#include "NativeRecorder.h"

#include <cuda.h>
#include <cupti.h> // includes generated_cuda_meta.h (the *_params structs)
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <unistd.h>
#ifdef VRAMSCOPE_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY // this process's own stack: the _UL* functions of libunwind.so
#include <libunwind.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>

namespace {

vs::cupti::NativeRecorder* recorder = nullptr;
CUpti_SubscriberHandle subscriber;

constexpr int kSkip = 1; // this callback's own frame
bool poolSizes = false;  // activity records are on: pool operations await their sample
bool stacks = true;      // VRAMSCOPE_STACKS=none: no backtrace, a cheaper recording without call sites
int64_t clockOffsetUs = 0;

// The call stack on the calling thread. libunwind's unw_backtrace keeps a per-thread cache of how to
// step through each return address, which glibc's backtrace re-derives from the unwind tables on
// every call; VRAMSCOPE_UNWINDER=glibc picks the latter.
bool useLibunwind = false;
int unwind(void** pcs, int n) {
#ifdef VRAMSCOPE_HAVE_LIBUNWIND
    if (useLibunwind) return unw_backtrace(pcs, n);
#endif
    return backtrace(pcs, n);
}

void chooseUnwinder() {
#ifdef VRAMSCOPE_HAVE_LIBUNWIND
    const char* choice = std::getenv("VRAMSCOPE_UNWINDER");
    useLibunwind = !choice || std::string(choice) != "glibc";
    if (useLibunwind) unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
#endif
}

// The device's name and memory for the Device record. The driver is already loaded in any process the
// agent runs in; looked up there rather than linked, so that the agent loads without one (tests).
void describeDevice(int ordinal) {
    using GetFn = CUresult (*)(CUdevice*, int);
    using NameFn = CUresult (*)(char*, int, CUdevice);
    using MemFn = CUresult (*)(size_t*, CUdevice);
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD); // loaded locally by the runtime
    if (!driver) return;
    const auto get = reinterpret_cast<GetFn>(dlsym(driver, "cuDeviceGet"));
    const auto name = reinterpret_cast<NameFn>(dlsym(driver, "cuDeviceGetName"));
    const auto mem = reinterpret_cast<MemFn>(dlsym(driver, "cuDeviceTotalMem_v2"));
    CUdevice dev;
    char text[256] = "";
    size_t bytes = 0;
    if (get && name && mem && get(&dev, ordinal) == CUDA_SUCCESS &&
        name(text, sizeof text, dev) == CUDA_SUCCESS && mem(&bytes, dev) == CUDA_SUCCESS)
        recorder->deviceInfo(ordinal, text, bytes);
}

// The ordinal of the device the calling context belongs to; its name and memory are written the first
// time it is seen. A per-thread cache of the last context keeps this off the hot path.
int deviceOf(CUcontext context) {
    thread_local CUcontext lastContext = nullptr;
    thread_local int lastDevice = 0;
    if (context == lastContext) return lastDevice;
    uint32_t id = 0;
    if (!context || cuptiGetDeviceId(context, &id) != CUPTI_SUCCESS) return 0;
    lastContext = context, lastDevice = int(id);
    static std::mutex mutex;
    static std::set<int> described;
    std::lock_guard lock(mutex);
    if (described.insert(lastDevice).second) describeDevice(lastDevice);
    return lastDevice;
}

template <class P> const P& params(const CUpti_CallbackData* d) {
    return *static_cast<const P*>(d->functionParams);
}

// Physical handles: created, released; which are mapped tells memory no segment shows. Address
// reservations hold no memory. No stack: these are bookkeeping, not allocations to attribute.
bool onVirtualMemory(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
        const auto& p = params<cuMemCreate_params>(d);
        return recorder->physicalCreated(*p.handle, p.size), true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
        return recorder->physicalReleased(params<cuMemRelease_params>(d).handle), true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve: {
        const auto& p = params<cuMemAddressReserve_params>(d);
        return recorder->addressReserved(*p.ptr, p.size), true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree:
        return recorder->addressFreed(params<cuMemAddressFree_params>(d).ptr), true;
    default:
        return false;
    }
}

void onDriverExit(CUpti_CallbackId cbid, const CUpti_CallbackData* d) {
    void* pcs[vs::cupti::NativeRecorder::kMaxFrames + kSkip];
    const int n = stacks ? unwind(pcs, vs::cupti::NativeRecorder::kMaxFrames + kSkip) : 0;
    void* const* at = pcs + kSkip;
    const int depth = n > kSkip ? n - kSkip : 0;
    const uint32_t pooled = poolSizes ? d->correlationId : 0;
    const int device = deviceOf(d->context);
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const auto& p = params<cuMemAlloc_v2_params>(d);
        return recorder->allocated(*p.dptr, p.bytesize, 0, at, depth, 0, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const auto& p = params<cuMemAllocManaged_params>(d);
        return recorder->allocated(*p.dptr, p.bytesize, 0, at, depth, 0, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const auto& p = params<cuMemAllocAsync_params>(d);
        return recorder->allocated(*p.dptr, p.bytesize, reinterpret_cast<uint64_t>(p.hStream), at, depth,
                                   pooled, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const auto& p = params<cuMemAllocFromPoolAsync_params>(d);
        return recorder->allocated(*p.dptr, p.bytesize, reinterpret_cast<uint64_t>(p.hStream), at, depth,
                                   pooled, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        return recorder->freed(params<cuMemFree_v2_params>(d).dptr, 0, at, depth, 0, device);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
        const auto& p = params<cuMemFreeAsync_params>(d);
        return recorder->freed(p.dptr, reinterpret_cast<uint64_t>(p.hStream), at, depth, pooled, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
        const auto& p = params<cuMemMap_params>(d);
        return recorder->mapped(p.ptr, p.size, at, depth, p.handle, device);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
        const auto& p = params<cuMemUnmap_params>(d);
        return recorder->unmapped(p.ptr, p.size, at, depth, device);
    }
    default:
        return;
    }
}

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) recorder->flush();
        return;
    }
    const auto* d = static_cast<const CUpti_CallbackData*>(data);
    if (d->callbackSite != CUPTI_API_EXIT ||
        *static_cast<const CUresult*>(d->functionReturnValue) != CUDA_SUCCESS)
        return;
    if (!onVirtualMemory(cbid, d)) onDriverExit(cbid, d);
}

std::string commandLine() {
    std::ifstream f("/proc/self/cmdline", std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (char& c : s)
        if (c == '\0') c = ' ';
    return s;
}

// Activity buffers: CUPTI asks for one, fills it, hands it back (on its thread or in a flush).
void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
    constexpr size_t kBytes = 1 << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBytes));
    *size = *buffer ? kBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    if (recorder) vs::cupti::walkActivityBuffer(buffer, validSize, clockOffsetUs, *recorder);
    std::free(buffer);
}

// Pool sizes come from activity records; without them pool allocations still show, as their own
// segments, and the pools' cached bytes are missing from reserved.
void enablePoolSizes() {
    uint64_t cuptiNow = 0;
    cuptiGetTimestamp(&cuptiNow);
    clockOffsetUs = vs::cupti::nowUs() - int64_t(cuptiNow / 1000);
    poolSizes = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted) == CUPTI_SUCCESS &&
                cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2) == CUPTI_SUCCESS &&
                cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY_POOL) == CUPTI_SUCCESS;
    if (!poolSizes) {
        std::fprintf(stderr,
                     "vramscope: CUPTI memory activity unavailable; memory pools' cached bytes are not "
                     "counted as reserved\n");
        return;
    }
    recorder->setBeforeFlush(
        [](bool final) { cuptiActivityFlushAll(final ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); });
}

void closeAtExit() {
    if (recorder) recorder->close();
}

bool check(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return true;
    const char* text = "?";
    cuptiGetResultString(r, &text);
    std::fprintf(
        stderr, "vramscope: CUPTI %s failed: %s%s; this program is not recorded\n", what, text,
        r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
            ? " (another CUPTI client - Nsight Systems, torch.profiler/Kineto - already holds the process)"
            : " (is the NVIDIA driver loaded?)");
    return false;
}

} // namespace

// The PyTorch recorder's `record --native` ends the agent's part before the process exits, so that
// it can append it to its own file: no callback after this, the final state written, the file
// closed. 1 when the agent was recording.
extern "C" __attribute__((visibility("default"))) int vramscope_cupti_finish(void) {
    if (!recorder) return 0;
    cuptiUnsubscribe(subscriber);
    recorder->close();
    return 1;
}

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    if (recorder) return 1;
    std::string path = std::getenv("VRAMSCOPE_OUTPUT") ? std::getenv("VRAMSCOPE_OUTPUT") : "";
    if (path.empty()) path = "vramscope-cupti-" + std::to_string(getpid()) + ".vscap";
    // Never through a symlink planted at the path (O_NOFOLLOW); readable by the user only.
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE* out = fd >= 0 ? fdopen(fd, "wb") : nullptr;
    if (fd >= 0 && !out) close(fd);
    if (!out) {
        std::fprintf(stderr, "vramscope: cannot write %s; this program is not recorded\n", path.c_str());
        return 0;
    }
    if (!check(cuptiSubscribe(&subscriber, callback, nullptr), "subscribe")) { // no driver, or taken
        std::fclose(out);
        std::remove(path.c_str()); // no empty file to mistake for a recording
        return 0;
    }
    std::unique_ptr<vs::cupti::LiveSocket> live;
    if (const char* sock = std::getenv("VRAMSCOPE_LIVE"); sock && *sock) {
        std::string error;
        live = vs::cupti::LiveSocket::connect(sock, error);
        if (!live)
            std::fprintf(stderr, "vramscope: no viewer listening at %s (%s); recording to %s only\n", sock,
                         error.c_str(), path.c_str());
    }
    recorder = new vs::cupti::NativeRecorder(out, 1 << 20, std::move(live));
    recorder->meta("pid", std::to_string(getpid()));
    recorder->meta("argv", commandLine());
    const char* stackMode = std::getenv("VRAMSCOPE_STACKS");
    stacks = !stackMode || std::string(stackMode) != "none";
    recorder->meta("stacks", stacks ? "native" : "none");
    chooseUnwinder();
    recorder->meta("unwinder", useLibunwind ? "libunwind" : "glibc");
    for (CUpti_CallbackId id :
         {CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
          CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
          CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
          CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
          CUPTI_DRIVER_TRACE_CBID_cuMemMap, CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
          CUPTI_DRIVER_TRACE_CBID_cuMemCreate, CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
          CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve, CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree})
        check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id), "enable callback");
    check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                              CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
          "enable context callback");
    enablePoolSizes();
    std::atexit(closeAtExit);
    std::fprintf(stderr, "vramscope: recording device memory to %s\n", path.c_str());
    return 1;
}
