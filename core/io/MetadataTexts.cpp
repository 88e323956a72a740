#include "MetadataTexts.h"

#include "SnapshotSchema.h"
#include "UserMetadata.h"

namespace vs {
using pickle::Kind;
using pickle::Value;

namespace {
constexpr uint64_t kKeptBytes = 64; // a map node and its share of the buckets, charged to the load
}

std::optional<StringId> MetadataTexts::of(pickle::PickleMachine& m, Value v) {
    if (m.isStr(v) && m.str(v).size() < kKeptFrom) return schema_.intern(m, m.str(v));
    const auto c = m.containerOf(v);
    const bool dict = c && c->kind == Kind::Dict;
    if (!m.isStr(v) && !dict) return std::nullopt;
    const uint64_t items = dict ? m.items(*c).size() : 0;
    const auto [it, fresh] = kept_.try_emplace(v.bits);
    if (fresh)
        m.meter().charge(kKeptBytes, m.offset());
    else if (it->second.items == items)
        return it->second.text;
    it->second = {items, convert(m, v)};
    return it->second.text;
}

std::optional<StringId> MetadataTexts::convert(pickle::PickleMachine& m, Value v) {
    ++converted_;
    if (m.isStr(v)) return schema_.intern(m, m.str(v));
    const auto text = userMetadataText(m, v);
    if (!text) return std::nullopt;
    return schema_.intern(m, *text);
}

} // namespace vs
