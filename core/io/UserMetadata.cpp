#include "UserMetadata.h"

#include "util/DisplayText.h"

#include <algorithm>
#include <cstdio>

namespace vs {
using pickle::Kind;
using pickle::Tag;
using pickle::Value;

namespace {
// Appends a scalar as Python's str() would print it, at most `room` bytes of a string (a value may
// be a memo reference to a long one); false for containers.
bool appendScalar(const pickle::PickleMachine& m, Value v, std::string& out, size_t room) {
    if (m.isStr(v)) return out.append(cutAtCharacter(m.str(v), room)), true;
    if (v.tag() == Tag::None) return out.append("None"), true;
    if (v.tag() == Tag::Bool) return out.append(v.payload() ? "True" : "False"), true;
    if (double x = 0; v.tag() == Tag::Float && m.toDouble(v, x)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return out.append(buf), true;
    }
    if (int64_t n = 0; (v.tag() == Tag::Int || v.tag() == Tag::BigInt) && m.toInt(v, n))
        return out.append(std::to_string(n)), true;
    return false;
}
} // namespace

std::optional<std::string> userMetadataText(const pickle::PickleMachine& m, Value v) {
    if (m.isStr(v)) return std::string(m.str(v));
    const auto c = m.containerOf(v);
    if (!c || c->kind != Kind::Dict) return std::nullopt;
    std::string out;
    const auto pairs = m.items(*c);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        // Past the bound only the types are checked (into a scratch string, no string's bytes).
        std::string scratch;
        const bool past = out.size() > kMaxDictMetadataBytes;
        std::string& to = past ? scratch : out;
        if (!to.empty()) to.append(", ");
        const size_t room = past ? 0 : kMaxDictMetadataBytes + 1 - std::min(to.size(), kMaxDictMetadataBytes);
        if (!appendScalar(m, pairs[i], to, room)) return std::nullopt;
        to.append(": ");
        if (!appendScalar(m, pairs[i + 1], to, room)) return std::nullopt;
    }
    if (out.size() > kMaxDictMetadataBytes)
        out = std::string(cutAtCharacter(out, kMaxDictMetadataBytes)) + "\u2026 (" +
              std::to_string(pairs.size() / 2) + " items)";
    return out;
}

} // namespace vs
