#pragma once
// Knows what PyTorch snapshot objects look like while the pickle is being decoded: a dict with an
// 'action' key becomes one event in column storage, a {name, filename, line} dict an interned frame,
// and a list of frames an interned stack. This keeps a 2M-entry snapshot compact while it loads,
// and the same frame-list object (a memo reference) maps to the same stack without re-hashing.
#include "MetadataTexts.h"
#include "PickleMachine.h"
#include "TimeRange.h" // kMaxPlausibleTimeUs: PyTorch stamps entries in µs since 1970
#include "model/Capture.h"

#include <array>
#include <unordered_map>

namespace vs {

enum class SnapshotKey : uint8_t {
    Other,
    Action,
    Addr,
    DeviceFree,
    Size,
    Stream,
    TimeUs,
    Frames,
    CompileContext,
    UserMetadata,
    Name,
    Filename,
    Line,
    Count
};

// Sizes above this (1 PiB) cannot be real device memory; rejecting them keeps sums exact.
constexpr uint64_t kMaxPlausibleBytes = 1ull << 50;
// A program uses a handful of streams; a StreamId is two bytes. The .vscap reader bounds them alike.
constexpr size_t kMaxStreams = 65536;
// What one event takes in the columns (time, addr, size, action, stream, stack).
constexpr uint64_t kEventColumnBytes =
    sizeof(int64_t) + 2 * sizeof(uint64_t) + sizeof(Action) + sizeof(StreamId) + sizeof(StackId);

class SnapshotSchema : public pickle::ContainerHooks {
  public:
    explicit SnapshotSchema(Capture& capture) : capture_(capture) {}

    bool dictFilled(pickle::PickleMachine& m, uint32_t container,
                    std::span<const pickle::Value> pairs) override;
    bool listExtended(pickle::PickleMachine& m, uint32_t container,
                      std::span<const pickle::Value> items) override;

    // Events in the order their dicts were completed; Event containers index into these columns.
    DeviceTrace& events() { return events_; }
    uint64_t unknownActions() const { return unknownActions_; }
    uint64_t linesOutOfRange() const {
        return linesOutOfRange_;
    }                                                     // frames whose line was read as 0 (LineRange.h)
    uint64_t badMetadata() const { return badMetadata_; } // user_metadata neither text nor a flat dict
    StringId intern(pickle::PickleMachine& m, std::string_view s); // charged to the load's meter
    SnapshotKey keyOf(const pickle::PickleMachine& m, pickle::Value key);
    StackId stackOf(const pickle::PickleMachine& m, pickle::Value v) const; // throws when not a frame list
    StackId stackOfOther(const pickle::PickleMachine& m, pickle::Value v) const;
    MetadataTexts& metadata() { return metadata_; } // user_metadata and labels, each object read once

  private:
    bool makeEvent(pickle::PickleMachine& m, uint32_t container, const std::array<pickle::Value, 13>& v,
                   uint32_t seen);
    bool makeFrame(pickle::PickleMachine& m, uint32_t container, const std::array<pickle::Value, 13>& v);
    StreamId stream(pickle::PickleMachine& m, uint64_t raw); // bounded and charged
    StreamId internStream(pickle::PickleMachine& m, uint64_t raw);
    std::pair<uint64_t, StreamId> lastStream_{};
    bool lastStreamSet_ = false;

    Capture& capture_;
    DeviceTrace events_;
    std::vector<FrameId> scratch_;
    std::array<pickle::Value, 13> fields_{}; // the values of a dict being filled, by SnapshotKey
    struct KeySequence {                     // the keys of the last dict filled (up to 16)
        size_t n = SIZE_MAX;
        std::array<uint64_t, 16> bits{};
        std::array<uint8_t, 16> slot{};
        uint32_t seen = 0;
    } lastKeys_;
    struct ListEntry {
        uint32_t offset, length; // in listCacheItems_
        uint32_t stack;
    };
    std::unordered_map<uint64_t, ListEntry> listCache_; // a fresh list of frames' item bits -> stack
    std::vector<uint64_t> listCacheItems_;
    static constexpr size_t kListCacheItems = 1 << 18;
    struct CacheSlot {
        uint64_t bits = 0;
        SnapshotKey key = SnapshotKey::Other;
    };
    std::array<CacheSlot, 256> keyCache_{};
    struct ActionSlot {
        uint64_t bits = 0;
        Action action = Action::Unknown;
    };
    std::array<ActionSlot, 16> actionCache_{}; // action strings are memo references too
    Action actionOf(const pickle::PickleMachine& m, pickle::Value v);
    Action actionMissed(const pickle::PickleMachine& m, pickle::Value v);
    uint64_t unknownActions_ = 0;
    uint64_t linesOutOfRange_ = 0;
    uint64_t badMetadata_ = 0;
    MetadataTexts metadata_{*this};
    friend class SnapshotWalk;
};

} // namespace vs
