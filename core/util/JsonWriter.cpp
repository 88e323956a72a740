#include "JsonWriter.h"

#include <cmath>
#include <cstdio>

namespace vs {

void JsonWriter::newline() {
    if (!pretty_) return;
    out_ << '\n';
    for (size_t i = 0; i < first_.size(); ++i) out_ << "  ";
}

void JsonWriter::separate() {
    if (afterKey_) {
        afterKey_ = false;
        return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ << ',';
    first_.back() = false;
    newline();
}

JsonWriter& JsonWriter::open(char c) {
    separate();
    out_ << c;
    first_.push_back(true);
    return *this;
}

JsonWriter& JsonWriter::close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ << c;
    if (first_.empty() && pretty_) out_ << '\n';
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
    separate();
    writeString(k);
    out_ << (pretty_ ? ": " : ":");
    afterKey_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    separate();
    writeString(s);
    return *this;
}

JsonWriter& JsonWriter::value(int64_t v) {
    separate();
    out_ << v;
    return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
    separate();
    out_ << v;
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    separate();
    if (!std::isfinite(v)) {
        out_ << "null";
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    out_ << buf;
    return *this;
}

JsonWriter& JsonWriter::null() {
    separate();
    out_ << "null";
    return *this;
}

JsonWriter& JsonWriter::value(bool b) {
    separate();
    out_ << (b ? "true" : "false");
    return *this;
}

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 when it is not one.
size_t utf8Sequence(std::string_view s) {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char c = b(0);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf; // the allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    if (n == 0 || s.size() < n || b(1) < lo || b(1) > hi) return 0;
    for (size_t i = 2; i < n; ++i)
        if (b(i) < 0x80 || b(i) > 0xbf) return 0;
    return n;
}

} // namespace

void JsonWriter::writeString(std::string_view s) {
    out_ << '"';
    for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) { // UTF-8 passes through; a byte that is not (a hostile file's) becomes U+FFFD
            const size_t n = utf8Sequence(s.substr(i));
            n ? (void)out_.write(s.data() + i, std::streamsize(n)) : (void)(out_ << "\\ufffd");
            i += n ? n - 1 : 0;
            continue;
        }
        switch (c) {
        case '"':
            out_ << "\\\"";
            break;
        case '\\':
            out_ << "\\\\";
            break;
        case '\n':
            out_ << "\\n";
            break;
        case '\r':
            out_ << "\\r";
            break;
        case '\t':
            out_ << "\\t";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out_ << buf;
            } else {
                out_ << c;
            }
        }
    }
    out_ << '"';
}

} // namespace vs
