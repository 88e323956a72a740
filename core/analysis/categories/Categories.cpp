#include "analysis/categories/Categories.h"

#include "analysis/categories/PhaseWindows.h"
#include "util/HugePages.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace vs {

std::string_view categoryName(Category c) {
    constexpr std::string_view names[] = {"parameter",  "gradient",  "optimizer state", "input data",
                                          "activation", "temporary", "unknown"};
    return names[static_cast<size_t>(c)];
}

namespace {

Category fromTag(TagKind k) {
    switch (k) {
    case TagKind::Parameter:
        return Category::Parameter;
    case TagKind::Gradient:
        return Category::Gradient;
    case TagKind::OptimizerState:
        return Category::OptimizerState;
    case TagKind::Input:
        return Category::Input;
    }
    return Category::Unknown;
}

// A tensor named twice keeps the more lasting name: a parameter handed to a model as input stays
// a parameter; state over gradient (an optimizer that keeps a gradient's buffer).
int rank(Category c) {
    switch (c) {
    case Category::Parameter:
        return 4;
    case Category::OptimizerState:
        return 3;
    case Category::Gradient:
        return 2;
    case Category::Input:
        return 1;
    default:
        return 0;
    }
}

// Tags name the allocation live at their moment whose block starts at the storage's address.
void applyTags(const Capture& c, int device, const DeviceTrace& t, DeviceCategories& out) {
    std::vector<const TensorTag*> tags;
    for (const auto& tag : c.tags)
        if (tag.device == device) tags.push_back(&tag);
    std::stable_sort(tags.begin(), tags.end(), [](auto* a, auto* b) { return a->timeUs < b->timeUs; });
    std::unordered_map<uint64_t, uint32_t> live; // block address -> allocation
    size_t next = 0, tag = 0;
    auto apply = [&](const TensorTag& g) {
        const auto it = live.find(g.address);
        if (it == live.end()) return;
        const Category cat = fromTag(g.kind);
        if (out.basis[it->second] != CategoryBasis::Tagged || rank(cat) > rank(out.category[it->second]))
            out.category[it->second] = cat, out.basis[it->second] = CategoryBasis::Tagged;
    };
    for (size_t i = 0; i < t.eventCount(); ++i) {
        for (; tag < tags.size() && tags[tag]->timeUs < t.timeUs[i]; ++tag) apply(*tags[tag]);
        if (next < out.allocations.size() && out.allocations[next].alloc == i)
            live[t.addr[i]] = uint32_t(next++);
        else if (t.action[i] == Action::FreeRequested || t.action[i] == Action::FreeCompleted)
            live.erase(t.addr[i]);
    }
    for (; tag < tags.size(); ++tag) apply(*tags[tag]);
}

// A training loop allocates the same tensors from the same line every iteration: an untagged
// allocation from a tagged one's call site, of its size, is the same kind of tensor (tags may be
// sampled, and the autograd engine's gradients come back each step).
void propagateBySite(DeviceCategories& out) {
    std::map<std::pair<uint32_t, uint64_t>, Category> bySite;
    for (size_t k = 0; k < out.allocations.size(); ++k)
        if (out.basis[k] == CategoryBasis::Tagged && out.allocations[k].stack.value != 0)
            bySite.emplace(std::pair{out.allocations[k].stack.value, out.allocations[k].bytes},
                           out.category[k]);
    for (size_t k = 0; k < out.allocations.size(); ++k) {
        if (out.basis[k] != CategoryBasis::None || out.allocations[k].stack.value == 0) continue;
        if (auto it = bySite.find({out.allocations[k].stack.value, out.allocations[k].bytes});
            it != bySite.end())
            out.category[k] = it->second, out.basis[k] = CategoryBasis::SameSite;
    }
}

// Without tags (a PyTorch snapshot): what Module.to()/.cuda() made (torch/nn/modules/module.py's
// _apply) is the model's parameters and buffers, for as long as they live.
void tagModuleMoves(const Capture& c, DeviceCategories& out) {
    std::unordered_map<uint32_t, bool> moved; // by stack
    for (size_t k = 0; k < out.allocations.size(); ++k) {
        const StackId s = out.allocations[k].stack;
        auto [it, fresh] = moved.emplace(s.value, false);
        if (fresh)
            for (FrameId f : c.stacks.frames(s))
                if (c.strings.text(c.frames[f].name) == "_apply" &&
                    c.strings.text(c.frames[f].filename).find("torch/nn/modules/module.py") !=
                        std::string_view::npos)
                    it->second = true;
        if (it->second) out.category[k] = Category::Parameter, out.basis[k] = CategoryBasis::Phase;
    }
}

// The rest by when they were made and let go (docs/categories.md). `firstIterationEndUs`: the end of
// the first optimizer step (or backward): what is made before it and kept to the end is made on
// first use (cuBLAS's workspaces, which PyTorch allocates through its allocator, lazily built
// buffers), not the phase's tensor.
// A gradient, a momentum or an Adam moment has its parameter's size: one made then and kept that
// has no parameter's size is a workspace (`parameterSized`).
Category byPhases(const PhaseWindows& w, int64_t allocUs, int64_t freeUs, int64_t firstIterationEndUs,
                  bool parameterSized) {
    const PhaseAt made = w.at(allocUs);
    const PhaseAt gone = freeUs == INT64_MAX ? PhaseAt{} : w.at(freeUs);
    if (made.instance != 0 && gone.instance == made.instance) return Category::Temporary;
    if (freeUs == INT64_MAX && allocUs < firstIterationEndUs &&
        !(parameterSized && (made.phase == Phase::Backward || made.phase == Phase::Optimizer)))
        return Category::Unknown;
    switch (made.phase) {
    case Phase::Forward:
        // Let go during a backward: autograd saved it for that backward. Kept past it: an output
        // the program holds on to, still made by the forward pass.
        return Category::Activation;
    case Phase::Backward:
        return Category::Gradient; // outlived the backward that made it
    case Phase::Optimizer:
        return Category::OptimizerState;
    case Phase::None:
        break;
    }
    // Outside every phase (data loading, zero_grad, metrics): freed before the next phase began.
    if (freeUs != INT64_MAX && gone.epoch == made.epoch) return Category::Temporary;
    return Category::Unknown;
}

// The category totals before every kCheckpointEvery-th event (out.frees: the frees in event order).
void fillCheckpoints(const DeviceTrace& t, DeviceCategories& out) {
    const auto& all = out.allocations;
    std::array<int64_t, kCategoryCount> bytes{};
    size_t a = 0, f = 0;
    out.checkpoints.reserve(t.eventCount() / DeviceCategories::kCheckpointEvery + 1);
    for (uint32_t i = 0; i < t.eventCount(); ++i) {
        if (i % DeviceCategories::kCheckpointEvery == 0) out.checkpoints.push_back(bytes);
        for (; a < all.size() && all[a].alloc == i; ++a)
            bytes[static_cast<size_t>(out.category[a])] += int64_t(all[a].bytes);
        for (; f < out.frees.size() && all[out.frees[f]].freeRequested == i; ++f) {
            const uint32_t k = out.frees[f];
            bytes[static_cast<size_t>(out.category[k])] -= int64_t(all[k].bytes);
        }
    }
}

} // namespace

DeviceCategories classifyDevice(const Capture& c, size_t device, const ReplayResult& replay) {
    const DeviceTrace& t = c.devices[device];
    DeviceCategories out;
    out.allocations = pairAllocations(t, replay, &out.frees);
    out.byStack = StackAllocations(out.allocations);
    out.byLifetime = LifetimeIndex(out.allocations);
    out.category.assign(out.allocations.size(), Category::Unknown);
    out.basis.assign(out.allocations.size(), CategoryBasis::None);
    applyTags(c, t.device, t, out);
    propagateBySite(out);
    const PhaseWindows windows = PhaseWindows::of(c, t); // guessed from stacks in a PyTorch snapshot
    if (c.tags.empty()) tagModuleMoves(c, out); // .to()/.cuda() of a module: its parameters and buffers
    const int64_t firstIterationEnd = windows.firstEndOf(Phase::Optimizer) != INT64_MAX
                                          ? windows.firstEndOf(Phase::Optimizer)
                                          : windows.firstEndOf(Phase::Backward);
    std::unordered_set<uint64_t> parameterSizes; // requested bytes of the parameters found so far
    for (size_t k = 0; k < out.allocations.size(); ++k)
        if (out.category[k] == Category::Parameter) parameterSizes.insert(t.size[out.allocations[k].alloc]);
    if (!windows.empty())
        for (size_t k = 0; k < out.allocations.size(); ++k) {
            if (out.basis[k] != CategoryBasis::None) continue;
            const Allocation& al = out.allocations[k];
            const int64_t freeUs = al.freeRequested == kNoEvent ? INT64_MAX : t.timeUs[al.freeRequested];
            out.category[k] = byPhases(windows, t.timeUs[al.alloc], freeUs, firstIterationEnd,
                                       parameterSizes.count(t.size[al.alloc]) != 0);
            out.basis[k] = CategoryBasis::Phase;
        }
    fillCheckpoints(t, out);
    if (!replay.allocated.empty()) {
        // allocated after the first event minus what that event itself changed
        const auto first = out.at(0);
        int64_t sum = 0;
        for (int64_t v : first) sum += v;
        out.before = replay.allocated[0] - sum;
    }
    return out;
}

std::array<int64_t, kCategoryCount> DeviceCategories::at(uint32_t event) const {
    std::array<int64_t, kCategoryCount> v{};
    if (!checkpoints.empty()) {
        const size_t j = std::min<size_t>((uint64_t(event) + 1) / kCheckpointEvery, checkpoints.size() - 1);
        v = checkpoints[j];
        const auto from = static_cast<uint32_t>(j * kCheckpointEvery); // then events from..event
        auto a = std::lower_bound(allocations.begin(), allocations.end(), from,
                                  [](const Allocation& x, uint32_t e) { return x.alloc < e; });
        for (; a != allocations.end() && a->alloc <= event; ++a)
            v[static_cast<size_t>(category[size_t(a - allocations.begin())])] += int64_t(a->bytes);
        auto f = std::lower_bound(frees.begin(), frees.end(), from,
                                  [&](uint32_t k, uint32_t e) { return allocations[k].freeRequested < e; });
        for (; f != frees.end() && allocations[*f].freeRequested <= event; ++f)
            v[static_cast<size_t>(category[*f])] -= int64_t(allocations[*f].bytes);
    }
    v[static_cast<size_t>(Category::Unknown)] += before;
    return v;
}

std::array<int64_t, kCategoryCount> DeviceCategories::requestedAt(uint32_t event,
                                                                  const DeviceTrace& t) const {
    std::array<int64_t, kCategoryCount> v{};
    for (size_t k = 0; k < allocations.size() && allocations[k].alloc <= event; ++k)
        if (allocations[k].aliveAt(event))
            v[static_cast<size_t>(category[k])] += int64_t(t.size[allocations[k].alloc]);
    return v;
}

Category DeviceCategories::ofAllocEvent(uint32_t event) const {
    auto it = std::lower_bound(allocations.begin(), allocations.end(), event,
                               [](const Allocation& a, uint32_t e) { return a.alloc < e; });
    return it != allocations.end() && it->alloc == event ? category[size_t(it - allocations.begin())]
                                                         : Category::Unknown;
}

Category DeviceCategories::dominant(const std::vector<uint32_t>& indices) const {
    std::array<uint64_t, kCategoryCount> bytes{};
    for (uint32_t k : indices)
        if (k < allocations.size()) bytes[static_cast<size_t>(category[k])] += allocations[k].bytes;
    const auto top = std::max_element(bytes.begin(), bytes.end());
    return *top ? Category(top - bytes.begin()) : Category::Unknown;
}

} // namespace vs
