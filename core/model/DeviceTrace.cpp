#include "DeviceTrace.h"

#include "HugeReserve.h"

namespace vs {

void DeviceTrace::reserve(size_t n) {
    reserveHuge(timeUs, n), reserveHuge(addr, n), reserveHuge(size, n);
    reserveHuge(action, n), reserveHuge(stream, n), reserveHuge(stack, n);
}

void DeviceTrace::clearEvents() {
    timeUs.clear(), addr.clear(), size.clear();
    action.clear(), stream.clear(), stack.clear();
    compileContext.clear(), userMetadata.clear();
}

} // namespace vs
