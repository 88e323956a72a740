#include "SnapshotWalk.h"

#include "LineRange.h"
#include "LoadError.h"
#include "PickleMachine.h"
#include "SnapshotSchema.h"
#include "util/Cancelled.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>

namespace vs {
using pickle::Kind;
using pickle::PickleMachine;
using pickle::Tag;
using pickle::Value;

namespace {
std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}
} // namespace

std::span<const Value> SnapshotWalk::listItems(Value v, const char* what) {
    const auto c = m_.containerOf(v);
    if (!c || (c->kind != Kind::List && c->kind != Kind::Tuple && c->kind != Kind::Events))
        fail(std::string(what) + " is not a list");
    if (c->kind == Kind::Events) { // a run of events where a list of something else is expected: its items
        auto [it, fresh] = runItems_.try_emplace(c->payload);
        if (fresh) {
            const auto [first, count] = m_.eventRun(*c);
            for (uint32_t i = 0; i < count; ++i) it->second.push_back(Value::make(Tag::Event, first + i));
        }
        return it->second;
    }
    return m_.items(*c);
}

// A device trace kept as a run of consecutive events: (first event, count).
std::optional<std::pair<uint32_t, uint32_t>> SnapshotWalk::eventRun(Value v) const {
    const auto c = m_.containerOf(v);
    if (c && c->kind == Kind::Events) return m_.eventRun(*c);
    return std::nullopt;
}

std::span<const Value> SnapshotWalk::dictPairs(Value v, const char* what) const {
    const auto c = m_.containerOf(v);
    if (!c || c->kind != Kind::Dict) fail(std::string(what) + " is not a dict");
    return m_.items(*c);
}

uint64_t SnapshotWalk::uintField(Value v, const char* what) const {
    uint64_t out;
    if (!m_.toUInt64(v, out)) fail(std::string(what) + " is not an integer");
    return out;
}

DeviceTrace& SnapshotWalk::deviceTrace(int ordinal) { // ordinal checked < kMaxDevices by the callers
    uint32_t& slot = deviceSlot_[static_cast<size_t>(ordinal)];
    if (slot == 0) {
        charge(sizeof(DeviceTrace));
        c_.devices.emplace_back().device = ordinal;
        slot = static_cast<uint32_t>(c_.devices.size());
    }
    return c_.devices[slot - 1];
}

void SnapshotWalk::load(Value top) {
    const auto c = m_.containerOf(top);
    if (c && (c->kind == Kind::List || c->kind == Kind::Events)) { // very old PyTorch: just the segments list
        loadSegments(top);
        return;
    }
    if (!c || c->kind != Kind::Dict)
        fail("the pickle holds a " + printable(top) + ", not a dict with 'segments' and 'device_traces'");
    bool any = false, tracesRead = false;
    std::optional<Value> hostSegments, hostTraces;
    auto pairs = m_.items(*c);
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto k = key(pairs[i]);
        const Value v = pairs[i + 1];
        if (k == "segments")
            loadSegments(v), any = true;
        else if (k == "device_traces" && tracesRead)
            fail("'device_traces' appears twice in the top-level dict");
        else if (k == "device_traces")
            loadTraces(v), any = tracesRead = true;
        else if (k == "allocator_settings")
            loadSettings(v);
        else if (k == "external_annotations")
            loadAnnotations(v);
        else if (k == "host_segments")
            hostSegments = v;
        else if (k == "host_traces")
            hostTraces = v;
    }
    if (!any && !hostSegments && !hostTraces)
        fail("the top-level dict has neither 'segments' nor 'device_traces'");
    // After the devices' traces: the host lane's entries are copied out of the shared columns, or out
    // of the device that took them whole (entries()).
    if (hostSegments) loadHostSegments(*hostSegments);
    if (hostTraces) loadHostTraces(*hostTraces);
    applyRingBuffer();
    if (annotationsSkipped_)
        warn(std::to_string(annotationsSkipped_) +
             " 'annotate' entries have no address or no plausible time_us: they were ignored");
    std::stable_sort(c_.blockAnnotations.begin(), c_.blockAnnotations.end(),
                     [](const auto& a, const auto& b) { return a.timeUs < b.timeUs; });
}

void SnapshotWalk::loadSegments(Value list) {
    auto segments = listItems(list, "'segments'");
    for (size_t i = 0; i < segments.size(); ++i) {
        int device = 0;
        charge(sizeof(SnapshotSegment));
        SnapshotSegment seg = loadSegment(segments[i], i, device);
        deviceTrace(device).finalSegments.push_back(std::move(seg));
    }
    for (auto& d : c_.devices) {
        std::sort(d.finalSegments.begin(), d.finalSegments.end(),
                  [](const auto& a, const auto& b) { return a.address < b.address; });
        checkSegmentsApart(d);
    }
}

SnapshotSegment SnapshotWalk::loadSegment(Value dict, size_t index, int& device, bool host) {
    SnapshotSegment seg;
    Value blocks{};
    bool hasBlocks = false;
    auto pairs = dictPairs(dict, "a segment");
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto k = key(pairs[i]);
        const Value v = pairs[i + 1];
        if (k == "device" && !host) { // pinned host memory has no device (PyTorch writes -1)
            int64_t n = 0;
            if (!m_.toInt(v, n)) fail("segment 'device' is not an integer");
            if (n < 0 || n >= int64_t(kMaxDevices))
                impossible("segment " + std::to_string(index) + " names device " + std::to_string(n) +
                           " (device ordinals are 0 to " + std::to_string(kMaxDevices - 1) + ")");
            device = static_cast<int>(n);
        } else if (k == "address")
            seg.address = uintField(v, "segment 'address'");
        else if (k == "total_size")
            seg.totalSize = uintField(v, "segment 'total_size'");
        else if (k == "stream")
            seg.stream = uintField(v, "segment 'stream'");
        else if (k == "segment_type")
            seg.smallPool = m_.str(v) == "small";
        else if (k == "is_expandable")
            seg.expandable = v.tag() == Tag::Bool && v.payload();
        else if (k == "frames")
            seg.stack = schema_.stackOf(m_, v);
        else if (k == "blocks")
            blocks = v, hasBlocks = true;
        else if (k == "segment_pool_id") {
            auto t = listItems(v, "'segment_pool_id'");
            for (size_t j = 0; j < 2 && j < t.size(); ++j) m_.toUInt64(t[j], seg.poolId[j]);
        }
    }
    if (seg.totalSize > kMaxPlausibleBytes)
        impossible("segment " + std::to_string(index) + " at " + hex(seg.address) + ": 'total_size' " +
                   std::to_string(seg.totalSize) + " is larger than any device memory");
    if (seg.address > UINT64_MAX - seg.totalSize)
        impossible("segment " + std::to_string(index) + " at " + hex(seg.address) +
                   " ends past the address space");
    if (hasBlocks) loadBlocks(blocks, index, device, seg);
    return seg;
}

// The blocks of one segment tile it in address order (older versions give no addresses: then they
// are contiguous from its start); a block outside it or over another is no state an allocator had.
void SnapshotWalk::loadBlocks(Value list, size_t index, int device, SnapshotSegment& seg) {
    auto items = listItems(list, "segment 'blocks'");
    charge(items.size() * sizeof(SnapshotBlock)); // one list shared by many segments is copied each time
    seg.blocks.reserve(items.size());
    const auto where = [&](size_t b, const SnapshotBlock& blk) {
        return "segment " + std::to_string(index) + " (device " + std::to_string(device) + ", " +
               std::to_string(seg.totalSize) + " bytes at " + hex(seg.address) + "): block " +
               std::to_string(b) + " (" + std::to_string(blk.size) + " bytes at " + hex(blk.address) + ")";
    };
    uint64_t at = seg.address;
    for (size_t b = 0; b < items.size(); ++b) {
        SnapshotBlock blk;
        bool hasAddress = false, hasRequested = false;
        auto bp = dictPairs(items[b], "a block");
        for (size_t i = 0; i + 1 < bp.size(); i += 2) {
            const auto k = key(bp[i]);
            const Value v = bp[i + 1];
            if (k == "address")
                blk.address = uintField(v, "block 'address'"), hasAddress = true;
            else if (k == "size")
                blk.size = uintField(v, "block 'size'");
            else if (k == "requested_size")
                blk.requestedSize = uintField(v, "block 'requested_size'"), hasRequested = true;
            else if (k == "frames")
                blk.stack = schema_.stackOf(m_, v);
            else if (k == "state") {
                const auto st = m_.str(v);
                blk.state = st == "active_allocated" ? BlockState::ActiveAllocated
                            : st == "active_pending_free" || st == "active_awaiting_free"
                                ? BlockState::ActivePendingFree
                                : BlockState::Inactive;
            }
        }
        if (!hasAddress) blk.address = at;
        if (!hasRequested) blk.requestedSize = blk.size;
        if (blk.size > seg.totalSize || blk.address < seg.address ||
            blk.address - seg.address > seg.totalSize - blk.size)
            impossible(where(b, blk) + " lies outside its segment");
        if (blk.address < at) impossible(where(b, blk) + " overlaps the block before it");
        at = blk.address + blk.size;
        seg.blocks.push_back(blk);
    }
}

// Pinned host memory's segments (the host caching allocator's, as PyTorch lists them beside the
// devices'): the lane kPinnedHostDevice. Not a list: ignored with a warning, as any newest field.
void SnapshotWalk::loadHostSegments(Value list) {
    const auto c = m_.containerOf(list);
    if (!c || (c->kind != Kind::List && c->kind != Kind::Tuple)) {
        warn("'host_segments' is not a list: the pinned host memory's final state was ignored");
        return;
    }
    auto segments = m_.items(*c);
    DeviceTrace& host = deviceTrace(kPinnedHostDevice);
    for (size_t i = 0; i < segments.size(); ++i) {
        int ignored = kPinnedHostDevice;
        charge(sizeof(SnapshotSegment));
        host.finalSegments.push_back(loadSegment(segments[i], i, ignored, true));
    }
    std::sort(host.finalSegments.begin(), host.finalSegments.end(),
              [](const auto& a, const auto& b) { return a.address < b.address; });
    checkSegmentsApart(host);
}

// Pinned host memory's trace: one list of entries, or a list of such lists (one per device, as
// device_traces), merged in time order. Another shape is ignored with a warning.
void SnapshotWalk::loadHostTraces(Value list) {
    std::vector<uint32_t> idx;
    const auto c = m_.containerOf(list);
    bool ok = c && (c->kind == Kind::List || c->kind == Kind::Tuple || c->kind == Kind::Events);
    if (ok && c->kind != Kind::Events) {
        const auto items = m_.items(*c);
        const auto first = items.empty() ? std::nullopt : m_.containerOf(items.front());
        const bool nested = first && first->kind != Kind::Event && first->kind != Kind::Dict;
        if (nested)
            for (Value sub : items) ok = ok && traceIndices(sub, kPinnedHostDevice, idx);
        else
            ok = traceIndices(list, kPinnedHostDevice, idx);
    } else if (ok) {
        ok = traceIndices(list, kPinnedHostDevice, idx);
    }
    if (!ok) {
        warn("'host_traces' is neither a list of trace entries nor a list of such lists: "
             "the pinned host memory's history was ignored");
        return;
    }
    if (idx.empty()) return;
    DeviceTrace& host = deviceTrace(kPinnedHostDevice); // first: it may move the devices
    const DeviceTrace& all = entries();
    std::stable_sort(idx.begin(), idx.end(),
                     [&](uint32_t a, uint32_t b) { return all.timeUs[a] < all.timeUs[b]; });
    copyTrace(idx, host);
}

void SnapshotWalk::checkSegmentsApart(const DeviceTrace& d) {
    for (size_t i = 1; i < d.finalSegments.size(); ++i) {
        const auto &a = d.finalSegments[i - 1], &b = d.finalSegments[i];
        if (a.address + a.totalSize > b.address)
            impossible("device " + std::to_string(d.device) + ": the segment at " + hex(a.address) + " (" +
                       std::to_string(a.totalSize) + " bytes) overlaps the one at " + hex(b.address));
    }
}

void SnapshotWalk::loadTraces(Value list) {
    DeviceTrace& all = schema_.events();
    auto devices = listItems(list, "'device_traces'");
    if (devices.size() > kMaxDevices)
        impossible("'device_traces' lists " + std::to_string(devices.size()) + " devices; at most " +
                   std::to_string(kMaxDevices) + " are supported");
    size_t nonEmpty = 0;
    for (Value d : devices) {
        const auto run = eventRun(d);
        nonEmpty += run ? run->second != 0 : !listItems(d, "a device trace").empty();
    }
    std::vector<uint32_t> idx;
    for (size_t d = 0; d < devices.size(); ++d) {
        idx.clear();
        bool identity = false;
        if (const auto run = eventRun(devices[d])) { // the usual case: consecutive entries
            if (run->second == 0) continue;
            identity = nonEmpty == 1 && run->first == 0 && run->second == all.eventCount();
            if (!identity) {
                idx.resize(run->second);
                std::iota(idx.begin(), idx.end(), run->first);
            }
        } else {
            if (!traceIndices(devices[d], int(d), idx)) fail("a device trace is not a list");
            if (idx.empty()) continue;
            identity = nonEmpty == 1 && idx.front() == 0 && idx.back() == idx.size() - 1 &&
                       idx.size() == all.eventCount() && std::is_sorted(idx.begin(), idx.end());
        }
        DeviceTrace& out = deviceTrace(static_cast<int>(d));
        if (identity) { // the usual case: one device, entries in creation order: move the columns
            auto segments = std::move(out.finalSegments);
            const int ordinal = out.device;
            out = std::move(all);
            out.device = ordinal;
            out.finalSegments = std::move(segments);
            movedTo_ = ordinal;
            continue;
        }
        copyTrace(idx, out);
    }
}

// The event indices of one trace list (a run of events or a plain list), in list order, and the
// 'annotate' entries among them as the device's block annotations. False when it is no list.
bool SnapshotWalk::traceIndices(Value list, int device, std::vector<uint32_t>& idx) {
    if (const auto run = eventRun(list)) {
        for (uint32_t i = 0; i < run->second; ++i) idx.push_back(run->first + i);
        return true;
    }
    const auto c = m_.containerOf(list);
    if (!c || (c->kind != Kind::List && c->kind != Kind::Tuple)) return false;
    for (Value e : m_.items(*c)) {
        const auto entry = m_.containerOf(e);
        if (entry && entry->kind == Kind::Event) {
            idx.push_back(entry->payload);
            continue;
        }
        const auto pairs = entry && entry->kind == Kind::Dict ? m_.items(*entry) : std::span<const Value>{};
        bool annotate = false;
        for (size_t i = 0; i + 1 < pairs.size(); i += 2)
            annotate |= m_.isStr(pairs[i]) && key(pairs[i]) == "action" && m_.isStr(pairs[i + 1]) &&
                        m_.str(pairs[i + 1]) == "annotate";
        if (!annotate) fail("a trace entry is not a dict with an 'action'");
        loadBlockAnnotation(pairs, device);
    }
    return true;
}

// An 'annotate' entry: the block's address, the time and the label (its user_metadata), tolerant of
// what a newer or broken writer may leave out: without an address or a time it is counted and skipped.
void SnapshotWalk::loadBlockAnnotation(std::span<const Value> pairs, int device) {
    BlockAnnotation a;
    a.device = device;
    bool hasAddress = false, hasTime = false;
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto k = key(pairs[i]);
        const Value v = pairs[i + 1];
        int64_t n = 0;
        if (k == "addr")
            hasAddress = m_.toUInt64(v, a.address);
        else if (k == "time_us" && m_.toInt(v, n) && !m_.isWide(v) && n >= 0 && n <= kMaxPlausibleTimeUs)
            a.timeUs = n, hasTime = true;
        else if (k == "user_metadata") {
            if (const auto text = schema_.metadata().of(m_, v)) a.text = *text;
        } else if (k == "frames") {
            const auto f = m_.peek(v);
            if (f.kind == Kind::Stack) a.stack = StackId{f.payload};
        }
    }
    if (!hasAddress || !hasTime) {
        ++annotationsSkipped_;
        return;
    }
    charge(sizeof a);
    c_.blockAnnotations.push_back(a);
}

// Every trace entry by its index in the file: the schema's columns, or the device they were moved
// to whole (loadTraces) when a host trace names entries after that (a memo reference to the
// device's list read the moved-from columns: a SEGV found by fuzzing, issue 47).
const DeviceTrace& SnapshotWalk::entries() {
    return movedTo_ < 0 ? schema_.events() : deviceTrace(movedTo_);
}

// Copies the entries `idx` (indices into the schema's columns) into a device's trace. An entry may be
// listed more than once (a memo reference): every copy is charged.
void SnapshotWalk::copyTrace(std::span<const uint32_t> idx, DeviceTrace& out) {
    const DeviceTrace& all = entries();
    charge(idx.size() * kEventColumnBytes);
    out.reserve(idx.size());
    for (uint32_t i : idx) {
        out.timeUs.push_back(all.timeUs[i]), out.addr.push_back(all.addr[i]), out.size.push_back(all.size[i]);
        out.action.push_back(all.action[i]), out.stream.push_back(all.stream[i]),
            out.stack.push_back(all.stack[i]);
    }
    // The sparse string columns are sorted by entry index: find each entry's by binary search.
    for (auto [from, to] : {std::pair{&all.compileContext, &out.compileContext},
                            std::pair{&all.userMetadata, &out.userMetadata}}) {
        if (from->empty()) continue;
        for (size_t n = 0; n < idx.size(); ++n) {
            auto it = std::lower_bound(from->begin(), from->end(), std::pair{idx[n], StringId{}},
                                       [](const auto& a, const auto& b) { return a.first < b.first; });
            if (it != from->end() && it->first == idx[n])
                to->emplace_back(static_cast<uint32_t>(n), it->second);
        }
    }
}

void SnapshotWalk::loadSettings(Value dict) {
    auto& s = c_.settings;
    s.present = true;
    std::optional<Value> overflowed, maxEntries;
    auto pairs = dictPairs(dict, "'allocator_settings'");
    for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
        const auto k = key(pairs[i]);
        const Value v = pairs[i + 1];
        auto text = settingText(v); // a shared long string is copied for every key that names it
        charge(k.size() + text.size() + 64);
        s.raw.emplace_back(std::string(k), std::move(text));
        int64_t n = 0;
        if (k == "expandable_segments")
            s.expandableSegments = v.tag() == Tag::Bool && v.payload();
        else if (k == "max_split_size" && m_.toInt(v, n))
            s.maxSplitSize = n < 0 ? UINT64_MAX : uint64_t(n);
        else if (k == "max_non_split_rounding" && m_.toInt(v, n) && n > 0)
            s.maxNonSplitRounding = uint64_t(n);
        else if (k == "garbage_collection_threshold")
            m_.toDouble(v, s.garbageCollectionThreshold);
        else if (k == "PYTORCH_CUDA_ALLOC_CONF")
            s.allocConf = std::string(m_.str(v));
        else if (k == "trace_alloc_overflowed")
            overflowed = v;
        else if (k == "trace_alloc_max_entries")
            maxEntries = v;
        else if (k == "roundup_power2_divisions") {
            const auto c = m_.containerOf(v);
            if (!c || c->kind != Kind::Dict) continue;
            auto rp = m_.items(*c);
            for (size_t j = 0; j + 1 < rp.size(); j += 2) { // keys '1','2',...,'32768' MiB
                const auto mib = std::string(m_.str(rp[j]));
                int64_t div = 0;
                if (mib.empty() || !m_.toInt(rp[j + 1], div)) continue;
                const int bucket =
                    63 - __builtin_clzll(std::max<uint64_t>(1, std::strtoull(mib.c_str(), nullptr, 10)));
                if (bucket >= 0 && bucket < 16) s.roundupPower2Divisions[bucket] = static_cast<uint32_t>(div);
            }
        }
    }
    if (overflowed || maxEntries) loadRingBuffer(overflowed, maxEntries);
}

// trace_alloc_overflowed (a bool, or one per device) and trace_alloc_max_entries (an int, or one per
// device): whether each device's ring buffer overwrote entries, and its size. Applied to the devices
// once their traces are read (the settings may come first); another type: ignored, with a warning.
void SnapshotWalk::loadRingBuffer(std::optional<Value> overflowed, std::optional<Value> maxEntries) {
    auto& s = c_.settings;
    auto count = [&](Value v, uint64_t& out) {
        int64_t n = 0;
        const bool ok = (v.tag() == Tag::Int || v.tag() == Tag::BigInt) && m_.toInt(v, n) && n >= 0;
        if (ok) out = std::max(out, uint64_t(n));
        return ok;
    };
    if (maxEntries) {
        const auto c = m_.containerOf(*maxEntries);
        bool ok = true;
        if (c && (c->kind == Kind::List || c->kind == Kind::Tuple)) // one per device: the largest
            for (Value v : m_.items(*c)) ok = count(v, s.traceMaxEntries) && ok;
        else
            ok = count(*maxEntries, s.traceMaxEntries);
        if (!ok)
            s.traceMaxEntries = 0,
            warn("allocator_settings 'trace_alloc_max_entries' is not a count: ignored");
    }
    if (!overflowed) return;
    ringFlags_.clear();
    ringFlagsForAll_ = overflowed->tag() == Tag::Bool;
    if (ringFlagsForAll_) {
        ringFlags_.push_back(overflowed->payload() != 0);
        return;
    }
    const auto c = m_.containerOf(*overflowed);
    bool ok = c && (c->kind == Kind::List || c->kind == Kind::Tuple);
    for (Value v : ok ? m_.items(*c) : std::span<const Value>{}) {
        ok = ok && v.tag() == Tag::Bool;
        ringFlags_.push_back(v.payload() != 0);
    }
    if (!ok) {
        ringFlags_.clear();
        warn("allocator_settings 'trace_alloc_overflowed' is neither a bool nor a list of bools: ignored; "
             "a trace that starts mid-run may be a late start or a ring buffer that overflowed");
    }
}

// Each device's ring buffer state from loadRingBuffer's flags (the host lane has a buffer of its own).
void SnapshotWalk::applyRingBuffer() {
    for (auto& d : c_.devices) {
        if (d.device == kPinnedHostDevice || ringFlags_.empty()) continue;
        const size_t at = ringFlagsForAll_ ? 0 : size_t(d.device);
        if (at < ringFlags_.size()) d.ringBuffer = ringFlags_[at] ? RingBuffer::Overflowed : RingBuffer::Kept;
    }
}

// Marks the program put on the timeline (torch.cuda.memory._record_memory_history's annotations):
// one with a time outside 1970..2200 or a device no ordinal has is skipped and counted, as an
// 'annotate' entry is (a time of 2^63 made a negative recorder pause, issue 47).
void SnapshotWalk::loadAnnotations(Value list) {
    uint64_t skipped = 0;
    for (Value a : listItems(list, "'external_annotations'")) {
        const auto c = m_.containerOf(a);
        if (!c || c->kind != Kind::Dict) continue; // unknown shapes of a newer version: skip, do not fail
        Annotation ann;
        bool plausible = true;
        auto pairs = m_.items(*c);
        for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
            const auto k = key(pairs[i]);
            const Value v = pairs[i + 1];
            int64_t n = 0;
            if (k == "stage")
                ann.start = m_.str(v) != "END";
            else if (k == "name" && m_.isStr(v)) // a shared name is interned once (MetadataTexts)
                ann.name = schema_.metadata().of(m_, v).value_or(StringId{0});
            else if (k == "device" && m_.toInt(v, n)) {
                plausible = plausible && !m_.isWide(v) && n >= -1 && n < int64_t(kMaxDevices);
                ann.device = static_cast<int>(n);
            } else if (k == "time_us" && m_.toInt(v, n)) {
                plausible = plausible && !m_.isWide(v) && plausibleTimeUs(n);
                ann.timeUs = n;
            }
        }
        if (!plausible) {
            ++skipped;
            continue;
        }
        charge(sizeof ann);
        c_.annotations.push_back(ann);
    }
    if (skipped)
        warn(std::to_string(skipped) + " 'external_annotations' have a time_us outside 1970..2200 or no "
                                       "device's ordinal: they were ignored");
}

// A setting as the user would read it: a dict or list with its first items ({1: 4, 2: 4, ...}),
// not only its kind (Capture Properties showed "roundup_power2_divisions: dict"); nested ones by kind.
std::string SnapshotWalk::settingText(Value v) const {
    const auto c = m_.containerOf(v);
    if (!c || (c->kind != Kind::Dict && c->kind != Kind::List && c->kind != Kind::Tuple)) return printable(v);
    constexpr size_t kShown = 16;
    const bool dict = c->kind == Kind::Dict;
    const auto items = m_.items(*c);
    const size_t step = dict ? 2 : 1, count = items.size() / step;
    std::string out(1, dict ? '{' : c->kind == Kind::List ? '[' : '(');
    for (size_t i = 0; i < count && i < kShown; ++i) {
        if (i) out += ", ";
        if (dict) out += printable(items[2 * i]) + ": ";
        out += printable(items[step * i + (dict ? 1 : 0)]);
    }
    if (count > kShown) out += ", \u2026 (" + std::to_string(count) + " items)";
    return out + (dict ? '}' : c->kind == Kind::List ? ']' : ')');
}

std::string SnapshotWalk::printable(Value v) const {
    int64_t n = 0;
    double x = 0;
    switch (v.tag()) {
    case Tag::None:
        return "None";
    case Tag::Bool:
        return v.payload() ? "True" : "False";
    case Tag::Str:
    case Tag::LongStr:
        return std::string(m_.str(v));
    case Tag::Float:
        return m_.toDouble(v, x) ? std::to_string(x) : "?";
    case Tag::Container:
    case Tag::Event: {
        const auto k = m_.containerOf(v)->kind;
        return k == Kind::Dict ? "dict" : k == Kind::Tuple ? "tuple" : "list";
    }
    default:
        return m_.toInt(v, n) ? std::to_string(n) : "?"; // an int too big for 64 bits
    }
}

} // namespace vs
