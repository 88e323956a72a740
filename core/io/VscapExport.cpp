#include "VscapExport.h"

#include "VscapEncodeState.h"
#include "VscapEvents.h"
#include "util/PrivatePath.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace vs {
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
        for (const auto& [k, v] : c_.meta) w_.write(vscap::MetaRecord{k, v});
        // what the source's reader said of it (a profiler trace's caveat, events left out) stays true
        // of the copy: a warning record each, once (a .vscap's own warnings are among the meta above)
        for (const auto& w : c_.warnings)
            if (std::find(c_.meta.begin(), c_.meta.end(),
                          std::pair<std::string, std::string>{"warning", w}) == c_.meta.end())
                w_.write(vscap::MetaRecord{"warning", w});
        for (const auto& d : c_.devices) // what the snapshot said of the ring buffer (warnings read it)
            if (d.ringBuffer != RingBuffer::Unknown)
                w_.write(vscap::MetaRecord{vscap::kRingBufferMeta, ringState(d)});
        for (const auto& d : c_.deviceInfo) w_.write(vscap::DeviceRecord{d.device, d.totalMemory, d.name});
        if (c_.settings.present) settings();
    }

    std::string ringState(const DeviceTrace& d) const {
        std::string state = std::to_string(d.device);
        state.append(d.ringBuffer == RingBuffer::Overflowed ? " overflowed" : " kept");
        if (c_.settings.traceMaxEntries)
            state.append(" ").append(std::to_string(c_.settings.traceMaxEntries));
        return state;
    }

    void settings() {
        const auto& s = c_.settings;
        w_.write(vscap::SettingsRecord{s.expandableSegments, s.maxSplitSize, s.maxNonSplitRounding,
                                       s.garbageCollectionThreshold, s.roundupPower2Divisions, s.allocConf,
                                       s.raw});
    }

    // File ids equal the capture's ids: the tables are written whole, in id order.
    void tables() {
        for (size_t i = 1; i < c_.strings.size(); ++i)
            w_.write(vscap::StringRecord{c_.strings.text(StringId{uint32_t(i)})});
        for (size_t i = 0; i < c_.frames.size(); ++i) {
            const Frame& f = c_.frames[FrameId{uint32_t(i)}];
            w_.write(vscap::FrameRecord{f.name.value, f.filename.value, f.line});
        }
        std::vector<uint64_t> ids;
        for (size_t i = 1; i < c_.stacks.size(); ++i) {
            ids.clear();
            for (FrameId f : c_.stacks.frames(StackId{uint32_t(i)})) ids.push_back(f.value);
            w_.write(vscap::StackRecord{ids});
        }
        for (uint64_t raw : c_.streams) w_.write(vscap::StreamRecord{raw});
    }

    void events(const DeviceTrace& d) {
        w_.write(vscap::ReserveRecord{d.device, d.eventCount()});
        for (size_t first = 0; first < d.eventCount(); first += perRecord_)
            eventBatch(d, first, std::min(d.eventCount(), first + perRecord_));
        for (const auto& [index, text] : d.compileContext)
            w_.write(vscap::EventTextRecord{d.device, index, 0, text.value});
        for (const auto& [index, text] : d.userMetadata)
            w_.write(vscap::EventTextRecord{d.device, index, 1, text.value});
    }

    void eventBatch(const DeviceTrace& d, size_t first, size_t last) {
        vscap::writeEventsBody(w_.beginRecord(Record::Events), d.device, last - first, [&](size_t k) {
            const size_t i = first + k;
            return vscap::EventFields{d.timeUs[i], d.addr[i],         d.size[i],
                                      d.action[i], d.stream[i].value, d.stack[i].value};
        });
        w_.endRecord();
    }

    void annotations() {
        for (const auto& a : c_.annotations)
            w_.write(vscap::AnnotationRecord{a.device, a.timeUs, a.start, a.name.value});
        for (const auto& a : c_.blockAnnotations)
            w_.write(
                vscap::BlockAnnotationRecord{a.device, a.timeUs, a.address, a.text.value, a.stack.value});
    }

    void retention(const RetentionGraph& g) {
        std::vector<vscap::RetentionNodeFields> nodes;
        nodes.reserve(g.nodes.size());
        for (const auto& n : g.nodes)
            nodes.push_back({uint8_t(n.kind), n.type.value, n.label.value, n.gpuBytes, n.address});
        std::vector<vscap::RetentionEdgeFields> edges;
        edges.reserve(g.edges.size());
        for (const auto& e : g.edges) edges.push_back({e.src, e.dst, uint8_t(e.kind), e.label.value});
        w_.write(vscap::RetentionRecord{g.device, g.timeUs, g.trigger.value, g.truncated, g.objectsScanned,
                                        g.millis, nodes, edges});
    }

    void segments(const DeviceTrace& d) {
        if (!d.hasFinalSnapshot) return; // an empty list is a real final state (after empty_cache)
        std::vector<vscap::BlockFields> blocks;
        for (const auto& s : d.finalSegments)
            for (const auto& k : s.blocks)
                blocks.push_back(
                    {k.address - s.address, k.size, k.requestedSize, uint8_t(k.state), k.stack.value});
        std::vector<vscap::SegmentFields> segs;
        segs.reserve(d.finalSegments.size());
        size_t first = 0;
        for (const auto& s : d.finalSegments) {
            const std::span<const vscap::BlockFields> mine(blocks.data() + first, s.blocks.size());
            segs.push_back({s.address, s.totalSize, s.stream, s.expandable, s.smallPool, s.poolId[0],
                            s.poolId[1], s.stack.value, mine});
            first += s.blocks.size();
        }
        w_.write(vscap::SegmentsRecord{d.device, segs});
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
    // The temporary name is predictable: a stale one (or a symlink planted there) is removed, and
    // the file is created anew without following anything (O_EXCL|O_NOFOLLOW).
    const std::string tmp = path + ".part";
    ::unlink(tmp.c_str());
    std::string error;
    const int fd = createExclusive(tmp, error, 0666); // a recording, readable as the umask allows
    std::unique_ptr<FILE, int (*)(FILE*)> f(fd < 0 ? nullptr : ::fdopen(fd, "wb"), &std::fclose);
    if (!f) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("cannot write " + path + (error.empty() ? "" : ": " + error));
    }
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
