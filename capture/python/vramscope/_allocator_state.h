#pragma once
// The allocator's block list and settings as torch.cuda.memory._snapshot() gives them ("segments",
// "allocator_settings"), read from the allocator's C++ snapshot without its trace ring, the block
// stacks (if asked) symbolized by symbolizeStacks(). Why not _snapshot(): it symbolizes every stack
// of the blocks and the ring, through PyTorch's unwinder, which imports torch._inductor (~4.5 s, see
// _own_symbols.h) - at the program's exit, or on the writer thread before a retention graph, where
// only addresses are needed. Fields that a torch version lacks are left out (requires-clauses).
// Included by the tracker only; called with the GIL.
#include "_own_symbols.h"

#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/extension.h>

#include <string>
#include <vector>

namespace vramscope_tracker {

template <class A> auto allocatorSnapshot(A* a) {
    if constexpr (requires { a->snapshot({0, 0}, false); })
        return a->snapshot({0, 0}, false); // without the trace ring (torch 2.10+)
    else
        return a->snapshot();
}

// "active_allocated", "active_pending_free" or "inactive", as _snapshot() names a block's state.
template <class B> const char* blockState(const B& b) {
    return b.allocated ? "active_allocated" : b.active ? "active_pending_free" : "inactive";
}

// Each dict given its "frames" as _snapshot() gives them: the symbolized stack of its context, or
// an empty list.
class __attribute__((visibility("hidden"))) StackRequests { // hidden: it holds pybind11 objects
  public:
    void add(const std::shared_ptr<c10::GatheredContext>& context, py::dict to) {
        if (auto* tb = dynamic_cast<torch::CapturedTraceback*>(context.get()))
            tbs_.push_back(tb), to_.push_back(std::move(to));
        else
            to["frames"] = py::list(); // as _snapshot() gives a block without a stack
    }
    // One dict per distinct frame, shared by the lists that hold it, as PyTorch's py_symbolize does.
    void resolve() {
        const auto sym = symbolizeStacks(tbs_);
        std::vector<py::dict> frames(sym.all_frames.size());
        for (size_t f = 0; f < frames.size(); ++f) {
            const auto& frame = sym.all_frames[f];
            // signed, as _snapshot() gives it: PyCode_Addr2Line's -1 (no line) stays -1
            frames[f]["filename"] = frame.filename, frames[f]["name"] = frame.funcname;
            frames[f]["line"] = static_cast<int64_t>(frame.lineno);
        }
        for (size_t k = 0; k < tbs_.size(); ++k) {
            py::list list;
            for (uint64_t f : sym.tracebacks[k]) list.append(frames[f]);
            to_[k]["frames"] = list;
        }
    }

  private:
    std::vector<torch::CapturedTraceback*> tbs_;
    std::vector<py::dict> to_;
};

template <class S> py::dict segmentDict(const S& s, bool stacks, StackRequests& requests) {
    py::dict d;
    d["device"] = static_cast<int>(s.device), d["address"] = static_cast<uint64_t>(s.address);
    d["total_size"] = static_cast<uint64_t>(s.total_size);
    d["allocated_size"] = static_cast<uint64_t>(s.allocated_size);
    d["active_size"] = static_cast<uint64_t>(s.active_size);
    d["requested_size"] = static_cast<uint64_t>(s.requested_size);
    d["stream"] = reinterpret_cast<uintptr_t>(s.stream);
    d["segment_type"] = s.is_large ? "large" : "small";
    if constexpr (requires { s.is_expandable; }) d["is_expandable"] = s.is_expandable;
    if constexpr (requires { s.owner_private_pool_id; })
        d["segment_pool_id"] = py::make_tuple(s.owner_private_pool_id.first, s.owner_private_pool_id.second);
    if (stacks) requests.add(s.context_when_allocated, d);
    py::list blocks;
    uint64_t address = s.address;
    for (const auto& b : s.blocks) {
        py::dict bd;
        bd["address"] = address, bd["size"] = static_cast<uint64_t>(b.size);
        bd["requested_size"] = static_cast<uint64_t>(b.requested_size), bd["state"] = blockState(b);
        if (stacks) requests.add(b.context_when_allocated, bd);
        blocks.append(bd);
        address += b.size;
    }
    d["blocks"] = blocks;
    return d;
}

// _snapshot()["allocator_settings"]: the same keys for the fields this torch has.
template <class C> py::dict settingsDict(const C& c) {
    py::dict d;
    if constexpr (requires { c.last_allocator_settings; })
        d["PYTORCH_CUDA_ALLOC_CONF"] = c.last_allocator_settings;
    if constexpr (requires { c.max_split_size; })
        d["max_split_size"] = static_cast<int64_t>(c.max_split_size);
    if constexpr (requires { c.garbage_collection_threshold; })
        d["garbage_collection_threshold"] = c.garbage_collection_threshold;
    if constexpr (requires { c.expandable_segments; }) d["expandable_segments"] = c.expandable_segments;
    if constexpr (requires { c.pinned_num_register_threads; })
        d["pinned_num_register_threads"] = static_cast<int64_t>(c.pinned_num_register_threads);
    if constexpr (requires { c.release_lock_on_malloc; })
        d["release_lock_on_cudamalloc"] = c.release_lock_on_malloc;
    if constexpr (requires { c.pinned_use_host_register; })
        d["pinned_use_cuda_host_register"] = c.pinned_use_host_register;
    if constexpr (requires { c.graph_capture_record_stream_reuse; })
        d["graph_capture_record_stream_reuse"] = c.graph_capture_record_stream_reuse;
    if constexpr (requires { c.roundup_power2_divisions; }) {
        py::dict roundup;
        uint64_t key = 1;
        for (const auto& v : c.roundup_power2_divisions)
            roundup[py::str(std::to_string(key))] = static_cast<int64_t>(v), key *= 2;
        d["roundup_power2_divisions"] = roundup;
    }
    return d;
}

// "allocator_settings" where this torch's snapshot has them (a template: the requires-clause of a
// plain function is checked, not discarded, and would fail on a torch without them).
template <class Info> void addSettings(py::dict& out, const Info& info) {
    if constexpr (requires { info.config_metadata; })
        out["allocator_settings"] = settingsDict(info.config_metadata);
}

// {"segments": [...], "allocator_settings": {...}}; the blocks' and segments' "frames" when `stacks`.
inline py::dict allocatorState(bool stacks) {
    const auto info = allocatorSnapshot(c10::cuda::CUDACachingAllocator::get());
    StackRequests requests;
    py::list segments;
    for (const auto& s : info.segments) segments.append(segmentDict(s, stacks, requests));
    requests.resolve();
    py::dict out;
    out["segments"] = segments;
    addSettings(out, info);
    return out;
}

} // namespace vramscope_tracker
