#pragma once
// user_metadata values and 'annotate' labels as interned text, each object read once. A pickler writes
// an object shared by many trace entries once and names it by memo reference after: rendering and
// hashing it again per reference made a 700 KB file with one shared dict take 11 s (issue 47). Here
// the text of a dict or a long string is kept per object, so the work is linear in the file's size.
#include "PickleMachine.h"
#include "model/Ids.h"

#include <optional>
#include <unordered_map>

namespace vs {

class SnapshotSchema;

class MetadataTexts {
  public:
    explicit MetadataTexts(SnapshotSchema& schema) : schema_(schema) {}
    // The interned text of `v` (StringId{0}: empty), or nullopt when it has none (UserMetadata.h).
    std::optional<StringId> of(pickle::PickleMachine& m, pickle::Value v);
    uint64_t converted() const { return converted_; } // objects rendered: a shared one counts once

  private:
    // Strings shorter than this are interned per reference: hashing them costs what a lookup here does.
    static constexpr size_t kKeptFrom = 64;
    struct Kept {
        uint64_t items = 0; // a dict's items when rendered: a dict filled further is rendered again
        std::optional<StringId> text;
    };
    std::optional<StringId> convert(pickle::PickleMachine& m, pickle::Value v);

    SnapshotSchema& schema_;
    // By the value's bits: a string's place in the input, or a dict's container slot (a plain dict's
    // slot is never reused; only dicts that became events and consumed frame lists give theirs back).
    std::unordered_map<uint64_t, Kept> kept_;
    uint64_t converted_ = 0;
};

} // namespace vs
