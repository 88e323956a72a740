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

void JsonWriter::writeString(std::string_view s) {
    out_ << '"';
    for (unsigned char c : s) {
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
                out_ << c; // UTF-8 passes through; invalid bytes are the input's own
            }
        }
    }
    out_ << '"';
}

} // namespace vs
