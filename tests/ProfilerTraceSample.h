#pragma once
// A torch.profiler trace written the way Kineto writes one, for tests (raw strings live here, out of
// moc's sight): "[memory]" instant events with Addr, Bytes, Total Allocated, Total Reserved, Device
// Id and Device Type, ts in µs after baseTimeNanoseconds, field names from PyTorch's profiler.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace vs::test {

// JSON that is not a usable trace.
constexpr const char* kNotATrace = R"({"name": "package.json", "version": "1.0"})";
constexpr const char* kNoMemoryEvents =
    R"({"traceEvents": [{"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2}]})";
constexpr const char* kHostMemoryOnly = R"({"traceEvents": [{"ph": "i", "name": "[memory]", "ts": 1,
    "args": {"Addr": 5, "Bytes": 8, "Device Type": 0, "Device Id": -1}}]})";
constexpr const char* kTruncated = R"({"traceEvents": [{"ph": "i", "name": "[memory)";

constexpr uint64_t kMiB = 1 << 20;
constexpr int64_t kBaseNs = 1700000000000000000;

struct Truth {
    double ts; // µs after the base time
    int device;
    int64_t allocated, reserved;
};

// A caching allocator in miniature: reserved grows by 2 MiB segments when allocated would pass it
// and shrinks at "empty_cache"; what it reports is what the profiler would.
class TraceWriter {
  public:
    std::string json;
    std::vector<Truth> truth;
    uint64_t baselineBytes = 0;

    TraceWriter() {
        json = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200"}], )"
               R"("profile_memory": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": )" +
               std::to_string(kBaseNs) + R"(, "traceEvents": [)" + "\n";
    }
    void baseline(int device, uint64_t addr, uint64_t bytes) {
        dev(device).live[addr] = bytes;
        dev(device).allocated += int64_t(bytes);
        dev(device).reserved = std::max(dev(device).reserved, roundUp(dev(device).allocated));
        baselineBytes += device == 0 ? bytes : 0;
    }
    void alloc(int device, uint64_t addr, uint64_t bytes) {
        Dev& d = dev(device);
        d.live[addr] = bytes;
        d.allocated += int64_t(bytes);
        d.reserved = std::max(d.reserved, roundUp(d.allocated));
        memory(device, addr, int64_t(bytes));
    }
    void free(int device, uint64_t addr) {
        Dev& d = dev(device);
        const uint64_t bytes = d.live.at(addr);
        d.live.erase(addr);
        d.allocated -= int64_t(bytes);
        memory(device, addr, -int64_t(bytes));
    }
    void emptyCache(int device) { dev(device).reserved = roundUp(dev(device).allocated); }
    void cpu(uint64_t addr, int64_t bytes) { // host memory: Device Type 0, Device Id -1
        event(
            R"("ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 4242, "tid": 4242, "ts": )" +
            ts() + R"(, "args": {"Total Reserved": 0, "Total Allocated": 0, "Bytes": )" +
            std::to_string(bytes) + R"(, "Addr": )" + std::to_string(addr) +
            R"(, "Device Id": -1, "Device Type": 0, "Ev Idx": 0})");
    }
    void op(const char* name) {
        event(R"("ph": "X", "cat": "cpu_op", "name": ")" + std::string(name) +
              R"(", "pid": 4242, "tid": 4242, "ts": )" + ts() +
              R"(, "dur": 3.5, "args": {"External id": 7, "Record function id": 0, "Ev Idx": 1})");
    }
    std::string finish() { return json + "\n], \"traceName\": \"trace.json\"}\n"; }

  private:
    struct Dev {
        std::map<uint64_t, uint64_t> live;
        int64_t allocated = 0, reserved = 0;
    };
    static int64_t roundUp(int64_t n) {
        return (n + int64_t(2 * kMiB) - 1) / int64_t(2 * kMiB) * int64_t(2 * kMiB);
    }
    Dev& dev(int d) { return devices_[d]; }
    std::string ts() {
        clock_ += 7.25; // fractional µs as Kineto writes them; distinct whole µs
        return std::to_string(clock_);
    }
    void event(const std::string& body) {
        json += (first_ ? "  {" : ",\n  {") + body + "}";
        first_ = false;
    }
    void memory(int device, uint64_t addr, int64_t bytes) {
        const Dev& d = dev(device);
        const std::string at = ts();
        truth.push_back({clock_, device, d.allocated, d.reserved});
        event(
            R"("ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 4242, "tid": 4243, "ts": )" +
            at + R"(, "args": {"Total Reserved": )" + std::to_string(d.reserved) +
            R"(, "Total Allocated": )" + std::to_string(d.allocated) + R"(, "Bytes": )" +
            std::to_string(bytes) + R"(, "Addr": )" + std::to_string(addr) + R"(, "Device Id": )" +
            std::to_string(device) + R"(, "Device Type": 1, "Ev Idx": 3})");
    }
    std::map<int, Dev> devices_;
    double clock_ = 1000;
    bool first_ = true;
};

// A training-like run on two GPUs: the same addresses on both (matched per device), blocks older
// than the profiler (one freed during the trace, one never), host memory events between them.
TraceWriter sampleTrace() {
    TraceWriter w;
    const uint64_t base = 0x7f3a00000000;
    w.baseline(0, base + 0x40000000, 1 * kMiB); // freed during the trace: known by its address
    w.baseline(0, base + 0x50000000, 3 * kMiB); // never freed: only Total Allocated tells of it
    std::mt19937 rng(7);
    std::vector<uint64_t> live[2];
    uint64_t next = base;
    for (int step = 0; step < 400; ++step) {
        const int d = step % 5 == 4 ? 1 : 0;
        if (step % 3 == 0) w.op("aten::mm");
        if (step % 7 == 0) w.cpu(0x5600000000 + uint64_t(step) * 64, step % 2 ? 4096 : -4096);
        if (step == 30) w.free(0, base + 0x40000000);
        if (step % 97 == 96) w.emptyCache(d);
        const bool freeOne = !live[d].empty() && (live[d].size() > 12 || rng() % 3 == 0);
        if (freeOne) {
            const size_t i = rng() % live[d].size();
            w.free(d, live[d][i]);
            live[d].erase(live[d].begin() + std::ptrdiff_t(i));
            continue;
        }
        const uint64_t bytes = 512 * (1 + rng() % (step % 11 == 0 ? 8192 : 64));
        const uint64_t addr =
            d == 1 && !live[0].empty() ? live[0].front() : (next += 0x400000); // same address on GPU 1
        if (std::find(live[d].begin(), live[d].end(), addr) != live[d].end()) continue;
        w.alloc(d, addr, bytes);
        live[d].push_back(addr);
    }
    return w;
}

std::string gzip(const std::string& s) {
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(s.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data())), z.avail_in = uInt(s.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data()), z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::span<const uint8_t> bytesOf(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

} // namespace vs::test
