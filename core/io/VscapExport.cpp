#include "VscapExport.h"

#include "VscapEvents.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace vs {
using vscap::ByteWriter;
using vscap::Record;
using vscap::Writer;

namespace {

class CaptureEncoder {
  public:
    CaptureEncoder(const Capture& c, Writer& w, size_t perRecord) : c_(c), w_(w), perRecord_(perRecord) {}
    void run() {
        meta();
        tables();
        for (const auto& d : c_.devices) events(d);
        annotations();
        for (const auto& g : c_.retention) retention(g);
        for (const auto& d : c_.devices) segments(d);
        w_.finish();
    }

  private:
    void meta() {
        for (const auto& [k, v] : c_.meta) {
            auto& b = w_.beginRecord(Record::Meta);
            b.varint(k.size()), b.bytes(k), b.bytes(v);
            w_.endRecord();
        }
        for (const auto& d : c_.deviceInfo) {
            auto& b = w_.beginRecord(Record::Device);
            b.svarint(d.device), b.varint(d.totalMemory), b.bytes(d.name);
            w_.endRecord();
        }
        if (c_.settings.present) settings();
    }

    void settings() {
        const auto& s = c_.settings;
        auto& b = w_.beginRecord(Record::Settings);
        b.u8(s.expandableSegments ? 1 : 0);
        b.varint(s.maxSplitSize), b.varint(s.maxNonSplitRounding), b.f64(s.garbageCollectionThreshold);
        for (uint32_t div : s.roundupPower2Divisions) b.varint(div);
        b.varint(s.allocConf.size()), b.bytes(s.allocConf);
        b.varint(s.raw.size());
        for (const auto& [k, v] : s.raw) b.varint(k.size()), b.bytes(k), b.varint(v.size()), b.bytes(v);
        w_.endRecord();
    }

    // File ids equal the capture's ids: the tables are written whole, in id order.
    void tables() {
        for (size_t i = 1; i < c_.strings.size(); ++i) {
            w_.beginRecord(Record::String).bytes(c_.strings.text(StringId{uint32_t(i)}));
            w_.endRecord();
        }
        for (size_t i = 0; i < c_.frames.size(); ++i) {
            const Frame& f = c_.frames[FrameId{uint32_t(i)}];
            auto& b = w_.beginRecord(Record::Frame);
            b.varint(f.name.value), b.varint(f.filename.value), b.varint(f.line);
            w_.endRecord();
        }
        for (size_t i = 1; i < c_.stacks.size(); ++i) {
            const auto frames = c_.stacks.frames(StackId{uint32_t(i)});
            auto& b = w_.beginRecord(Record::Stack);
            b.varint(frames.size());
            for (FrameId f : frames) b.varint(f.value);
            w_.endRecord();
        }
        for (uint64_t raw : c_.streams) {
            w_.beginRecord(Record::Stream).varint(raw);
            w_.endRecord();
        }
    }

    void events(const DeviceTrace& d) {
        auto& b = w_.beginRecord(Record::Reserve);
        b.svarint(d.device), b.varint(d.eventCount());
        w_.endRecord();
        for (size_t first = 0; first < d.eventCount(); first += perRecord_)
            eventBatch(d, first, std::min(d.eventCount(), first + perRecord_));
        for (const auto& [index, text] : d.compileContext) eventText(d.device, index, 0, text);
        for (const auto& [index, text] : d.userMetadata) eventText(d.device, index, 1, text);
    }

    void eventBatch(const DeviceTrace& d, size_t first, size_t last) {
        vscap::writeEventsBody(w_.beginRecord(Record::Events), d.device, last - first, [&](size_t k) {
            const size_t i = first + k;
            return vscap::EventFields{d.timeUs[i], d.addr[i],         d.size[i],
                                      d.action[i], d.stream[i].value, d.stack[i].value};
        });
        w_.endRecord();
    }

    void eventText(int device, uint32_t index, uint8_t kind, StringId text) {
        auto& b = w_.beginRecord(Record::EventText);
        b.svarint(device), b.varint(index), b.u8(kind), b.varint(text.value);
        w_.endRecord();
    }

    void annotations() {
        for (const auto& a : c_.annotations) {
            auto& b = w_.beginRecord(Record::Annotation);
            b.svarint(a.device), b.svarint(a.timeUs), b.u8(a.start ? 0 : 1), b.varint(a.name.value);
            w_.endRecord();
        }
    }

    void retention(const RetentionGraph& g) {
        auto& b = w_.beginRecord(Record::Retention);
        b.varint(1), b.svarint(g.device), b.svarint(g.timeUs), b.varint(g.trigger.value);
        b.varint(g.truncated ? 1 : 0), b.varint(g.objectsScanned), b.varint(g.millis);
        b.varint(g.nodes.size());
        for (const auto& n : g.nodes)
            b.u8(uint8_t(n.kind)), b.varint(n.type.value), b.varint(n.label.value), b.varint(n.gpuBytes),
                b.varint(n.address);
        b.varint(g.edges.size());
        for (const auto& e : g.edges)
            b.varint(e.src), b.varint(e.dst), b.u8(uint8_t(e.kind)), b.varint(e.label.value);
        w_.endRecord();
    }

    void segments(const DeviceTrace& d) {
        if (!d.hasFinalSnapshot) return; // an empty list is a real final state (after empty_cache)
        auto& b = w_.beginRecord(Record::Segments);
        b.svarint(d.device), b.varint(d.finalSegments.size());
        for (const auto& s : d.finalSegments) {
            b.varint(s.address), b.varint(s.totalSize), b.varint(s.stream);
            b.u8(static_cast<uint8_t>((s.expandable ? 1 : 0) | (s.smallPool ? 2 : 0)));
            b.varint(s.poolId[0]), b.varint(s.poolId[1]), b.varint(s.stack.value);
            b.varint(s.blocks.size());
            for (const auto& k : s.blocks) {
                b.varint(k.address - s.address), b.varint(k.size), b.varint(k.requestedSize);
                b.u8(static_cast<uint8_t>(k.state)), b.varint(k.stack.value);
            }
        }
        w_.endRecord();
    }

    const Capture& c_;
    Writer& w_;
    size_t perRecord_;
};

} // namespace

std::string encodeVscap(const Capture& capture, const Writer::Options& options) {
    std::string out;
    Writer w([&](std::string_view s) { out.append(s); }, options);
    CaptureEncoder(capture, w, std::max<size_t>(1, options.eventsPerRecord)).run();
    return out;
}

void writeVscapFile(const Capture& capture, const std::string& path, const Writer::Options& options) {
    const std::string tmp = path + ".part";
    std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(tmp.c_str(), "wb"), &std::fclose);
    if (!f) throw std::runtime_error("cannot write " + path);
    bool ok = true;
    Writer w([&](std::string_view s) { ok = ok && std::fwrite(s.data(), 1, s.size(), f.get()) == s.size(); },
             options);
    CaptureEncoder(capture, w, std::max<size_t>(1, options.eventsPerRecord)).run();
    ok = std::fflush(f.get()) == 0 && ok;
    f.reset();
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error("cannot write " + path + " (disk full?)");
    }
}

} // namespace vs
