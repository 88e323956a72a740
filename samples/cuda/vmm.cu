// CUDA virtual memory management (cuMemAddressReserve/cuMemCreate/cuMemMap/cuMemUnmap/cuMemRelease),
// as PyTorch's expandable segments use it: three granules mapped into one reservation, one unmapped
// and released again, and one physical handle created and never mapped nor released (LEAK-SITE):
// device memory that no mapping shows, which the agent reports at the end.
#include <cstdio>
#include <cuda.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        CUresult e = (x);                                                                          \
        if (e != CUDA_SUCCESS) return std::fprintf(stderr, "%s failed: %d\n", #x, int(e)), 1;      \
    } while (0)

int main() {
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t granule = 0;
    CHECK(cuMemGetAllocationGranularity(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr base;
    CHECK(cuMemAddressReserve(&base, 8 * granule, 0, 0, 0));
    CUmemGenericAllocationHandle h[4];
    for (auto& handle : h) CHECK(cuMemCreate(&handle, granule, &prop, 0));
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    for (int i = 0; i < 3; ++i) {
        CHECK(cuMemMap(base + i * granule, granule, 0, h[i], 0));
        CHECK(cuMemSetAccess(base + i * granule, granule, &access, 1));
    }
    CHECK(cuMemUnmap(base + 2 * granule, granule));
    CHECK(cuMemRelease(h[2]));
    // h[3] is never mapped nor released: LEAK-SITE
    size_t freeBytes = 0, total = 0;
    CHECK(cuMemGetInfo(&freeBytes, &total));
    std::printf("granule %zu mapped %zu unmapped-held %zu\n", granule, 2 * granule, granule);
    return 0;
}
