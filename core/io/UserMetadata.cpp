#include "UserMetadata.h"

#include <cstdio>

namespace vs {
using pickle::Kind;
using pickle::Tag;
using pickle::Value;

namespace {
// A scalar as Python's str() would print it; nullopt for containers.
std::optional<std::string> scalarText(const pickle::PickleMachine& m, Value v) {
    if (m.isStr(v)) return std::string(m.str(v));
    if (v.tag() == Tag::None) return "None";
    if (v.tag() == Tag::Bool) return v.payload() ? "True" : "False";
    if (double x = 0; v.tag() == Tag::Float && m.toDouble(v, x)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", x);
        return buf;
    }
    if (int64_t n = 0; (v.tag() == Tag::Int || v.tag() == Tag::BigInt) && m.toInt(v, n))
        return std::to_string(n);
    return std::nullopt;
}
} // namespace

std::optional<std::string> userMetadataText(const pickle::PickleMachine& m, Value v) {
    if (m.isStr(v)) return std::string(m.str(v));
    const auto c = m.containerOf(v);
    if (!c || c->kind != Kind::Dict) return std::nullopt;
    std::string out;
    const auto pairs = m.items(*c);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto key = scalarText(m, pairs[i]);
        const auto value = scalarText(m, pairs[i + 1]);
        if (!key || !value) return std::nullopt;
        out += (out.empty() ? "" : ", ") + *key + ": " + *value;
    }
    return out;
}

} // namespace vs
