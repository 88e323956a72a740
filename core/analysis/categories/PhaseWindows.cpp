#include "analysis/categories/PhaseWindows.h"

#include <algorithm>
#include <climits>
#include <string_view>

namespace vs {

static Phase phaseNamed(std::string_view name) {
    if (name == "forward") return Phase::Forward;
    if (name == "backward") return Phase::Backward;
    if (name == "optimizer.step") return Phase::Optimizer;
    return Phase::None;
}

PhaseWindows::PhaseWindows(const Capture& c) {
    std::vector<Mark> marks;
    for (const auto& a : c.annotations)
        if (const Phase p = phaseNamed(c.strings.text(a.name)); p != Phase::None)
            marks.push_back({a.timeUs, p, a.start});
    build(std::move(marks));
}

namespace {

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

bool isPython(std::string_view file) {
    return file.size() > 3 && (file.substr(file.size() - 3) == ".py" || file.front() == '<');
}

// The phase one allocation's Python stack says it was made in; None when it says nothing.
Phase phaseOfStack(const Capture& c, StackId s, bool& python) {
    python = false;
    Phase found = Phase::None;
    for (FrameId f : c.stacks.frames(s)) {
        const std::string_view file = c.strings.text(c.frames[f].filename),
                               name = c.strings.text(c.frames[f].name);
        if (!isPython(file)) continue;
        python = true;
        if (contains(file, "torch/optim/")) return Phase::Optimizer;
        if (contains(file, "torch/autograd/")) return Phase::Backward;
        if (found == Phase::None && name == "_call_impl" && contains(file, "torch/nn/modules/module.py"))
            found = Phase::Forward;
    }
    return found;
}

} // namespace

PhaseWindows PhaseWindows::of(const Capture& c, const DeviceTrace& t) {
    PhaseWindows w(c);
    if (w.empty() && !c.nativeStacks) w = fromStacks(c, t);
    return w;
}

PhaseWindows PhaseWindows::fromStacks(const Capture& c, const DeviceTrace& t) {
    PhaseWindows w;
    std::vector<Mark> marks;
    bool anyPython = false;
    Phase run = Phase::None;
    int64_t runEnd = 0;
    for (size_t i = 0; i < t.eventCount(); ++i) {
        if (t.action[i] != Action::Alloc) continue;
        bool python = false;
        Phase p = phaseOfStack(c, t.stack[i], python);
        anyPython |= python;
        if (!python) p = Phase::Backward; // the autograd engine's thread has no Python frame
        if (p == Phase::None) continue;   // setup, data, the script's own code: inside whatever run is open
        if (p != run) {
            if (run != Phase::None) marks.push_back({runEnd + 1, run, false});
            marks.push_back({t.timeUs[i], p, true});
            run = p;
        }
        runEnd = t.timeUs[i];
    }
    if (run != Phase::None) marks.push_back({runEnd + 1, run, false});
    if (anyPython) w.build(std::move(marks));
    w.guessed_ = true;
    return w;
}

void PhaseWindows::build(std::vector<Mark> marks) {
    std::stable_sort(marks.begin(), marks.end(),
                     [](const Mark& x, const Mark& y) { return x.timeUs < y.timeUs; });
    std::vector<PhaseAt> open; // innermost last
    for (const Mark& m : marks) {
        if (m.start) {
            ends_.push_back(INT64_MAX);
            starts_.push_back(m.timeUs);
            phases_.push_back(m.phase);
            open.push_back({m.phase, static_cast<uint32_t>(ends_.size())});
        } else {
            // The most recent open instance of this phase ends (and any left open inside it: a
            // forward whose END was lost to an exception).
            auto it = std::find_if(open.rbegin(), open.rend(),
                                   [&](const PhaseAt& o) { return o.phase == m.phase; });
            if (it == open.rend()) continue;
            for (auto inner = open.begin() + (open.rend() - it) - 1; inner != open.end(); ++inner)
                ends_[inner->instance - 1] = m.timeUs;
            open.erase(open.begin() + (open.rend() - it) - 1, open.end());
        }
        PhaseAt now = open.empty() ? PhaseAt{} : open.back();
        now.epoch = static_cast<uint32_t>(changes_.size() + 1);
        changes_.push_back({m.timeUs, now});
    }
}

PhaseAt PhaseWindows::at(int64_t timeUs) const {
    auto it = std::upper_bound(changes_.begin(), changes_.end(), timeUs,
                               [](int64_t t, const Change& c) { return t < c.timeUs; });
    return it == changes_.begin() ? PhaseAt{} : std::prev(it)->now;
}

int64_t PhaseWindows::endOf(uint32_t instance) const {
    return instance == 0 || instance > ends_.size() ? INT64_MAX : ends_[instance - 1];
}

int64_t PhaseWindows::firstEndOf(Phase p) const {
    for (size_t i = 0; i < phases_.size(); ++i)
        if (phases_[i] == p && ends_[i] != INT64_MAX) return ends_[i];
    return INT64_MAX;
}

std::vector<PhaseWindows::Window> PhaseWindows::evaluations() const {
    std::vector<Window> out;
    size_t forwards = 0; // in the window being built; 0: none open
    // A window ends where training resumes (what follows its last forward pass, a torch.cat of the
    // outputs or a metric, is the evaluation's), or at the end of the recording. One forward pass
    // without a backward one is a teacher's or a no_grad helper's, unless the phases were guessed from
    // stacks, where a whole evaluation's forward passes are one window.
    auto close = [&](int64_t resumeUs) {
        if (forwards == 1 && !guessed_)
            out.pop_back();
        else if (forwards)
            out.back().toUs = resumeUs;
        forwards = 0;
    };
    for (size_t i = 0; i < phases_.size(); ++i) {
        if (phases_[i] != Phase::Forward) continue;
        if (forwards && starts_[i] < ends_[i - 1] && phases_[i - 1] == Phase::Forward) continue; // nested
        bool backward = false;
        for (size_t next = i + 1; next < phases_.size() && phases_[next] != Phase::Forward; ++next)
            backward |= phases_[next] == Phase::Backward;
        if (backward) {
            close(starts_[i]);
            continue;
        }
        if (!forwards) out.push_back({starts_[i], INT64_MAX});
        ++forwards;
    }
    close(INT64_MAX);
    return out;
}

} // namespace vs
