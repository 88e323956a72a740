// Another CUPTI client in the same process, subscribed before the agent initialises (LD_PRELOAD):
// stands for Nsight Systems or a profiler; the agent must say so and let the program run.
#include <cstdio>
#include <cupti.h>

namespace {
CUpti_SubscriberHandle handle;
void CUPTIAPI ignore(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}
__attribute__((constructor)) void subscribeFirst() {
    const CUptiResult r = cuptiSubscribe(&handle, ignore, nullptr);
    std::fprintf(stderr, "other subscriber: cuptiSubscribe -> %d\n", int(r));
}
} // namespace
