#pragma once
// A minimal streaming JSON writer (objects, arrays, strings, integers, bools): enough for the CLI's
// documented outputs without pulling a JSON library into the Qt-free core.
#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace vs {

class JsonWriter {
  public:
    explicit JsonWriter(std::ostream& out, bool pretty = true) : out_(out), pretty_(pretty) {}

    JsonWriter& beginObject() { return open('{'); }
    JsonWriter& endObject() { return close('}'); }
    JsonWriter& beginArray() { return open('['); }
    JsonWriter& endArray() { return close(']'); }
    JsonWriter& key(std::string_view k);
    JsonWriter& value(std::string_view s);
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& value(int64_t v);
    JsonWriter& value(uint64_t v);
    JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
    JsonWriter& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
    JsonWriter& value(double v);
    JsonWriter& value(bool b);
    JsonWriter& null();
    template <class T> JsonWriter& field(std::string_view k, const T& v) { return key(k).value(v); }

  private:
    JsonWriter& open(char c);
    JsonWriter& close(char c);
    void separate();
    void newline();
    void writeString(std::string_view s);

    std::ostream& out_;
    bool pretty_;
    std::vector<bool> first_; // per open container: no element written yet
    bool afterKey_ = false;
};

} // namespace vs
