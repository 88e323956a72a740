#include "DeviceTrace.h"

namespace vs {

void DeviceTrace::reserve(size_t n) {
    timeUs.reserve(n), addr.reserve(n), size.reserve(n);
    action.reserve(n), stream.reserve(n), stack.reserve(n);
}

void DeviceTrace::clearEvents() {
    timeUs.clear(), addr.clear(), size.clear();
    action.clear(), stream.clear(), stack.clear();
    compileContext.clear(), userMetadata.clear();
}

} // namespace vs
