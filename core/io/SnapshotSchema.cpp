#include "SnapshotSchema.h"

#include "LineRange.h"
#include "LoadError.h"

#include <algorithm>

namespace vs {
using pickle::Kind;
using pickle::Tag;
using pickle::Value;

namespace {
constexpr uint32_t bit(SnapshotKey k) {
    return 1u << static_cast<unsigned>(k);
}

SnapshotKey classify(std::string_view k) {
    static constexpr std::pair<std::string_view, SnapshotKey> known[] = {
        {"action", SnapshotKey::Action},
        {"addr", SnapshotKey::Addr},
        {"device_free", SnapshotKey::DeviceFree},
        {"size", SnapshotKey::Size},
        {"stream", SnapshotKey::Stream},
        {"time_us", SnapshotKey::TimeUs},
        {"frames", SnapshotKey::Frames},
        {"compile_context", SnapshotKey::CompileContext},
        {"user_metadata", SnapshotKey::UserMetadata},
        {"name", SnapshotKey::Name},
        {"filename", SnapshotKey::Filename},
        {"line", SnapshotKey::Line},
    };
    for (auto [text, key] : known)
        if (text == k) return key;
    return SnapshotKey::Other;
}
} // namespace

SnapshotKey SnapshotSchema::keyOf(const pickle::PickleMachine& m, Value key) {
    // Keys are almost always memo references to the same string object, hence the same bits.
    auto& slot = keyCache_[(key.bits * 0x9E3779B97F4A7C15ULL) >> 56];
    if (slot.bits == key.bits && key.bits != 0) return slot.key;
    const SnapshotKey k = m.isStr(key) ? classify(m.str(key)) : SnapshotKey::Other;
    slot = {key.bits, k};
    return k;
}

Action SnapshotSchema::actionOf(const pickle::PickleMachine& m, Value v) {
    auto& slot = actionCache_[(v.bits * 0x9E3779B97F4A7C15ULL) >> 60];
    if (slot.bits == v.bits && v.bits != 0) [[likely]]
        return slot.action;
    return actionMissed(m, v);
}

Action SnapshotSchema::actionMissed(const pickle::PickleMachine& m, Value v) {
    auto& slot = actionCache_[(v.bits * 0x9E3779B97F4A7C15ULL) >> 60];
    const Action a = actionFromName(m.str(v));
    slot = {v.bits, a};
    return a;
}

StackId SnapshotSchema::stackOf(const pickle::PickleMachine& m, Value v) const {
    const auto c = m.peek(v);
    if (c.kind == Kind::Stack) [[likely]]
        return StackId{c.payload};
    return stackOfOther(m, v);
}

StackId SnapshotSchema::stackOfOther(const pickle::PickleMachine& m, Value v) const {
    const auto c = m.peek(v);
    if (c.kind == Kind::List && m.items(c).empty()) return StackId{0};
    if (v.tag() == Tag::None) return StackId{0};
    throw LoadError("'frames' is not a list of {name, filename, line} frames", m.offset());
}

bool SnapshotSchema::dictFilled(pickle::PickleMachine& m, uint32_t container, std::span<const Value> pairs) {
    auto& v = fields_; // slots of keys not in `seen` hold an earlier dict's values: never read
    uint32_t seen = 0;
    const size_t n = pairs.size() / 2;
    // Trace entries repeat one sequence of keys (the same memo references, hence the same bits):
    // when a dict has the last dict's keys, their slots are known without looking each key up.
    bool same = n == lastKeys_.n;
    if (same) {
        uint64_t differ = 0;
        for (size_t i = 0; i < n; ++i) differ |= pairs[2 * i].bits ^ lastKeys_.bits[i];
        same = differ == 0;
    }
    if (same) {
        for (size_t i = 0; i < n; ++i) v[lastKeys_.slot[i]] = pairs[2 * i + 1];
        seen = lastKeys_.seen;
    } else {
        for (size_t i = 0; i < n; ++i) {
            const SnapshotKey k = keyOf(m, pairs[2 * i]);
            v[static_cast<size_t>(k)] = pairs[2 * i + 1];
            seen |= bit(k);
            if (i < lastKeys_.bits.size())
                lastKeys_.bits[i] = pairs[2 * i].bits, lastKeys_.slot[i] = uint8_t(k);
        }
        lastKeys_.n = n <= lastKeys_.bits.size() ? n : SIZE_MAX;
        lastKeys_.seen = seen;
    }
    if ((seen & bit(SnapshotKey::Action)) && m.isStr(v[size_t(SnapshotKey::Action)]))
        return makeEvent(m, container, v, seen);
    const uint32_t frameKeys = bit(SnapshotKey::Name) | bit(SnapshotKey::Filename) | bit(SnapshotKey::Line);
    if ((seen & frameKeys) == frameKeys) return makeFrame(m, container, v);
    return false;
}

bool SnapshotSchema::makeEvent(pickle::PickleMachine& m, uint32_t container, const std::array<Value, 13>& v,
                               uint32_t seen) {
    auto get = [&](SnapshotKey k) { return v[static_cast<size_t>(k)]; };
    const Action action = actionOf(m, get(SnapshotKey::Action));
    // An 'annotate' entry labels a live block and changes no memory: it stays a plain dict, read by
    // the loader from its device's list (BlockAnnotation.h), and the lists holding one become plain.
    if (action == Action::Unknown && m.str(get(SnapshotKey::Action)) == "annotate") return false;
    if (action == Action::Unknown) ++unknownActions_;
    auto integer = [&](SnapshotKey k, const char* name) -> uint64_t {
        uint64_t out = 0;
        if (!(seen & bit(k))) return 0; // keys missing in other PyTorch versions default to 0
        if (!m.toUInt64(get(k), out))
            throw LoadError(std::string("trace entry field '") + name + "' is not an integer", m.offset());
        return out;
    };
    const uint64_t addr = action == Action::Oom && (seen & bit(SnapshotKey::DeviceFree))
                              ? integer(SnapshotKey::DeviceFree, "device_free")
                              : integer(SnapshotKey::Addr, "addr");
    const uint64_t size = integer(SnapshotKey::Size, "size");
    const bool wideSize = (seen & bit(SnapshotKey::Size)) && m.isWide(get(SnapshotKey::Size));
    if ((size > kMaxPlausibleBytes || wideSize) &&
        action != Action::Oom) // keeps every sum of sizes far from overflow
        throw LoadError("trace entry 'size' " +
                            (wideSize ? std::string("of more than 64 bits") : std::to_string(size)) +
                            " is larger than any device memory",
                        m.offset());
    const auto index = static_cast<uint32_t>(events_.eventCount());
    if (index == UINT32_MAX) throw LoadError("more than 4 billion trace entries", m.offset());
    const auto time = static_cast<int64_t>(integer(SnapshotKey::TimeUs, "time_us"));
    const bool above63 = (seen & bit(SnapshotKey::TimeUs)) && m.isAbove63(get(SnapshotKey::TimeUs));
    const bool wide = (seen & bit(SnapshotKey::TimeUs)) && m.isWide(get(SnapshotKey::TimeUs));
    if (time < 0 || time > kMaxPlausibleTimeUs || wide)
        throw LoadError("trace entry " + std::to_string(index) + " (in file order, '" +
                            std::string(m.str(get(SnapshotKey::Action))) + "'): time_us " +
                            (wide      ? std::string("of more than 64 bits")
                             : above63 ? std::to_string(uint64_t(time))
                                       : std::to_string(time)) +
                            (!above63 && (time < 0 || wide) ? " is negative" : " is after the year 2200") +
                            ", not a time PyTorch records",
                        m.offset());
    m.meter().charge(kEventColumnBytes, m.offset());
    events_.timeUs.push_back(time);
    events_.addr.push_back(addr);
    events_.size.push_back(size);
    events_.action.push_back(action);
    events_.stream.push_back(stream(m, integer(SnapshotKey::Stream, "stream")));
    events_.stack.push_back((seen & bit(SnapshotKey::Frames)) ? stackOf(m, get(SnapshotKey::Frames))
                                                              : StackId{0});
    if (seen & bit(SnapshotKey::CompileContext)) { // a string, shared like user_metadata: read once
        const Value context = get(SnapshotKey::CompileContext);
        const auto s = m.str(context);
        if (!s.empty() && s != "N/A") events_.compileContext.emplace_back(index, *metadata_.of(m, context));
    }
    if (seen & bit(SnapshotKey::UserMetadata)) {
        const auto text = metadata_.of(m, get(SnapshotKey::UserMetadata));
        if (!text)
            ++badMetadata_;
        else if (text->value != 0) // StringId{0}: empty
            events_.userMetadata.emplace_back(index, *text);
    }
    m.specialise(container, Kind::Event, index);
    return true;
}

bool SnapshotSchema::makeFrame(pickle::PickleMachine& m, uint32_t container, const std::array<Value, 13>& v) {
    auto get = [&](SnapshotKey k) { return v[static_cast<size_t>(k)]; };
    int64_t line = 0;
    if (!m.isStr(get(SnapshotKey::Name)) || !m.isStr(get(SnapshotKey::Filename)) ||
        !m.toInt(get(SnapshotKey::Line), line))
        return false;                                // not a frame after all: keep it as a plain dict
    if (m.isWide(get(SnapshotKey::Line))) line = -1; // out of range whatever its low bits say
    Frame f{intern(m, m.str(get(SnapshotKey::Name))), intern(m, m.str(get(SnapshotKey::Filename))),
            lineOrUnknown(line, linesOutOfRange_)};
    const size_t before = capture_.frames.size();
    const FrameId id = capture_.frames.intern(f);
    if (capture_.frames.size() != before) m.meter().charge(sizeof(Frame) + 16, m.offset()); // + hash index
    m.specialise(container, Kind::Frame, id.value);
    return true;
}

StreamId SnapshotSchema::stream(pickle::PickleMachine& m, uint64_t raw) {
    if (raw == lastStream_.first && lastStreamSet_) return lastStream_.second; // almost every entry
    const StreamId id = internStream(m, raw);
    lastStream_ = {raw, id}, lastStreamSet_ = true;
    return id;
}

StreamId SnapshotSchema::internStream(pickle::PickleMachine& m, uint64_t raw) {
    const size_t before = capture_.streams.size();
    const StreamId id = capture_.internStream(raw);
    if (capture_.streams.size() != before) {
        // The stream table is a sorted vector built for a few streams: many would make it quadratic.
        if (capture_.streams.size() > kMaxStreams)
            throw LoadError("more than " + std::to_string(kMaxStreams) +
                                " distinct CUDA streams in the trace",
                            m.offset());
        m.meter().charge(3 * sizeof(uint64_t), m.offset());
    }
    return id;
}

StringId SnapshotSchema::intern(pickle::PickleMachine& m, std::string_view s) {
    const size_t before = capture_.strings.size();
    const StringId id = capture_.strings.intern(s);
    if (capture_.strings.size() != before) m.meter().charge(s.size() + 64, m.offset()); // + node, index
    return id;
}

bool SnapshotSchema::listExtended(pickle::PickleMachine& m, uint32_t container,
                                  std::span<const Value> items) {
    if (items.empty()) return true;
    for (Value it : items)
        if (m.peek(it).kind != Kind::Frame) return false;
    const auto& self = m.container(container);
    // A fresh list of the frames of a list before (trace entries repeat a few stacks, each in a
    // list of its own): frame values name immutable frames, so it is that list's stack.
    uint64_t h = items.size();
    for (Value it : items) h = (h ^ it.bits) * 0x9E3779B97F4A7C15ULL, h ^= h >> 32;
    if (self.kind != Kind::Stack) {
        const auto hit = listCache_.find(h);
        if (hit != listCache_.end() && hit->second.length == items.size() &&
            std::equal(items.begin(), items.end(), listCacheItems_.begin() + hit->second.offset,
                       [](Value a, uint64_t b) { return a.bits == b; })) {
            m.specialise(container, Kind::Stack, hit->second.stack);
            return true;
        }
    }
    const bool fresh = self.kind != Kind::Stack;
    scratch_.clear();
    for (Value it : items) scratch_.push_back(FrameId{m.peek(it).payload});
    // Each extension interns the whole list again (extend() costs only the new frames). It is
    // charged as a stack of its own even where it shares its base's frames, so that a long list
    // appended to one frame at a time is refused as before, for the table it would otherwise grow.
    const size_t before = capture_.stacks.size();
    const StackId id = capture_.stacks.extend(fresh ? StackId{0} : StackId{self.payload}, scratch_);
    if (capture_.stacks.size() != before)
        m.meter().charge(capture_.stacks.frames(id).size() * sizeof(FrameId) + 16, m.offset());
    m.specialise(container, Kind::Stack, id.value);
    if (fresh && listCacheItems_.size() + items.size() <= kListCacheItems) { // bounded: not charged
        listCache_[h] = {static_cast<uint32_t>(listCacheItems_.size()), static_cast<uint32_t>(items.size()),
                         id.value};
        for (Value it : items) listCacheItems_.push_back(it.bits);
    }
    return true;
}

} // namespace vs
