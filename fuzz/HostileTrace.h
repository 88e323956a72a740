#pragma once
// Structure-aware fuzzing of the torch.profiler trace reader: turns fuzzer bytes into a well-formed
// Chrome trace JSON whose "[memory]" events and op spans carry hostile values: addresses, sizes and
// totals from FuzzBytes::integer (signs, 2^63, all ones), numbers written as floats past int64 or
// as strings, devices and device types outside CUDA's, string thread ids, spans that end before they
// start or overlap, names with " at 0x" and "file.py(N): f" forms. Byte mutations of JSON mostly
// break its grammar; these reach the capture builder's arithmetic and the site sweep behind it.
#include "FuzzBytes.h"

#include <string>

namespace vs::fuzz {

class HostileTrace {
  public:
    explicit HostileTrace(FuzzBytes& in) : in_(in) {}

    std::string build() {
        out_ = "{\"schemaVersion\": 1, \"baseTimeNanoseconds\": " + number(1700000000000000000) +
               ", \"traceEvents\": [";
        for (size_t e = 0, n = 1 + in_.below(24); e < n; ++e) {
            if (e) out_ += ",";
            in_.below(3) == 0 ? span() : memory();
        }
        return out_ += "]}";
    }

  private:
    // A number as the profiler writes it, or now and then as a float, a huge float or a string.
    std::string number(int64_t typical) {
        const int64_t v = in_.integer(typical);
        switch (in_.below(8)) {
        case 0:
            return std::to_string(v) + ".5";
        case 1:
            return in_.flag() ? "1e300" : "-1.8446744073709552e19";
        case 2:
            return quoted(std::to_string(v));
        default:
            return std::to_string(v);
        }
    }
    std::string tid() {
        return in_.below(4) == 0 ? quoted(std::string("thread ").append(std::to_string(in_.below(3))))
                                 : number(7);
    }
    // Appending to a named string: GCC 12's -Wrestrict misfires on `"literal" + std::string&&` at -O3.
    static std::string quoted(const std::string& body) {
        std::string q(1, '"');
        q.append(body);
        return q.append(1, '"');
    }

    void memory() {
        static constexpr int64_t kAddrs[] = {0x7f0000000000, 0x7f0000000200, 0x7f0000100000};
        const int64_t addr = in_.below(4) == 3 ? in_.integer(0) : kAddrs[in_.below(3)];
        out_ += "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"tid\": " + tid() +
                ", \"ts\": " + number(int64_t(10 + in_.below(40))) +
                ", \"args\": {\"Addr\": " + std::to_string(addr) +
                ", \"Bytes\": " + number(in_.flag() ? 512 : -512) + ", \"Total Allocated\": " + number(1024) +
                ", \"Total Reserved\": " + number(2 << 20) + ", \"Device Id\": " + number(0) +
                ", \"Device Type\": " + (in_.below(4) == 0 ? number(1) : "1") + "}}";
    }

    void span() {
        static constexpr const char* kNames[] = {"aten::empty",
                                                 "train.py(12): step",
                                                 "<built-in method mean of Tensor object at 0x7f28aa>",
                                                 "x.py(99999999999): f",
                                                 "(): ",
                                                 "## forward ##"};
        static constexpr const char* kCats[] = {"cpu_op", "python_function", "user_annotation", "kernel"};
        out_ += "{\"ph\": \"X\", \"cat\": \"" + std::string(kCats[in_.below(4)]) + "\", \"name\": \"" +
                kNames[in_.below(6)] + "\", \"tid\": " + tid() +
                ", \"ts\": " + number(int64_t(in_.below(40))) +
                ", \"dur\": " + number(int64_t(in_.below(40))) + "}";
    }

    FuzzBytes& in_;
    std::string out_;
};

} // namespace vs::fuzz
