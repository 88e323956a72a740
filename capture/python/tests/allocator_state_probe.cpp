// A Python module for test_allocator_state.py (torch-free, against tests/torch_headers' stand-ins for
// PyTorch's allocator and traceback headers): the recorder's reader of the allocator's block list
// and settings (vramscope/_allocator_state.h) on a snapshot the test describes.
//   set_snapshot(segments, settings)   segments: [{"device", "address", "total_size", "stream",
//       "is_large", "is_expandable", "pool": (a, b), "frames": [(code, lasti)] | None,
//       "blocks": [{"size", "requested_size", "allocated", "active", "frames"}]}]
//   state(stacks) -> allocatorState(stacks); traces_asked() -> whether the last snapshot asked for the ring
#include <torch/extension.h>

#include "_allocator_state.h"

#include <memory>
#include <string>

namespace {

namespace alloc = c10::cuda::CUDACachingAllocator;
namespace device = c10::CachingDeviceAllocator;

// A Python-only traceback of (code, lasti) pairs; the test keeps the code objects alive.
std::shared_ptr<c10::GatheredContext> contextOf(py::handle frames) {
    if (frames.is_none()) return nullptr;
    auto tb = std::make_shared<torch::CapturedTraceback>();
    for (py::handle f : frames) {
        const auto pair = f.cast<py::tuple>();
        (tb.get()->*vramscope_tracker::framesMember()).push_back({pair[0].ptr(), pair[1].cast<int>()});
    }
    return tb;
}

device::BlockInfo blockOf(const py::dict& b) {
    device::BlockInfo out;
    out.size = b["size"].cast<size_t>(), out.requested_size = b["requested_size"].cast<size_t>();
    out.allocated = b["allocated"].cast<bool>(), out.active = b["active"].cast<bool>();
    out.context_when_allocated = contextOf(b["frames"]);
    return out;
}

device::SegmentInfo segmentOf(const py::dict& s) {
    device::SegmentInfo out;
    out.device = static_cast<signed char>(s["device"].cast<int>());
    out.address = s["address"].cast<size_t>(), out.total_size = s["total_size"].cast<size_t>();
    out.stream = reinterpret_cast<void*>(s["stream"].cast<uintptr_t>());
    out.is_large = s["is_large"].cast<bool>(), out.is_expandable = s["is_expandable"].cast<bool>();
    const auto pool = s["pool"].cast<py::tuple>();
    out.owner_private_pool_id = {pool[0].cast<unsigned long long>(), pool[1].cast<unsigned long long>()};
    out.context_when_allocated = contextOf(s["frames"]);
    for (py::handle b : s["blocks"].cast<py::list>()) {
        out.blocks.push_back(blockOf(b.cast<py::dict>()));
        out.allocated_size += out.blocks.back().allocated ? out.blocks.back().size : 0;
    }
    return out;
}

void setSnapshot(const py::list& segments, const py::dict& settings) {
    alloc::SnapshotInfo info;
    for (py::handle s : segments) info.segments.push_back(segmentOf(s.cast<py::dict>()));
    auto& c = info.config_metadata;
    c.max_split_size =
        settings["max_split_size"].is_none() ? SIZE_MAX : settings["max_split_size"].cast<size_t>();
    c.garbage_collection_threshold = settings["garbage_collection_threshold"].cast<double>();
    c.expandable_segments = settings["expandable_segments"].cast<bool>();
    c.last_allocator_settings = settings["conf"].cast<std::string>();
    c.roundup_power2_divisions = settings["roundup"].cast<std::vector<size_t>>();
    alloc::standIn() = std::move(info);
}

} // namespace

PYBIND11_MODULE(vramscope_state, m) {
    m.def("set_snapshot", &setSnapshot, "the snapshot the stand-in allocator gives");
    m.def("state", &vramscope_tracker::allocatorState, py::arg("stacks"), "allocatorState(stacks)");
    m.def("traces_asked", [] { return alloc::get()->tracesAsked; });
}
