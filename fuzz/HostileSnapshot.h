#pragma once
// Structure-aware fuzzing of the snapshot path: turns fuzzer bytes into a well-formed pickle of a
// PyTorch snapshot ({'segments', 'device_traces', 'allocator_settings'}) whose field values, counts and
// shared references are hostile: times and sizes from FuzzBytes::integer, devices past the limit,
// blocks over and outside their segments, memo references to earlier lists (shared traces, blocks
// and frame lists), unknown actions. Random bytes almost never get past the pickle's grammar; these
// reach the schema and loader checks and the replay behind them.
#include "../tests/PickleBuilder.h"
#include "FuzzBytes.h"

#include <string>
#include <vector>

namespace vs::fuzz {

class HostileSnapshot {
  public:
    explicit HostileSnapshot(FuzzBytes& in) : in_(in) {}

    std::vector<uint8_t> build() {
        p_.proto(4);
        dict();
        p_.mark();
        key("segments");
        list();
        p_.mark();
        for (size_t s = 0, n = in_.below(6); s < n; ++s) segment();
        p_.appends();
        key("device_traces");
        list();
        p_.mark();
        const size_t devices = in_.below(8) == 7 ? 1025 : 1 + in_.below(3);
        for (size_t d = 0; d < devices; ++d) trace(d);
        p_.appends();
        key("allocator_settings");
        dict();
        p_.mark();
        key("max_split_size");
        p_.integer(in_.integer(-1));
        key("expandable_segments");
        p_.op(in_.flag() ? 0x88 : 0x89);
        if (in_.flag()) ringBuffer();
        p_.setitems();
        if (in_.below(4) == 0) hostLane();
        if (in_.below(4) == 0) externalAnnotations();
        return p_.setitems().stop().bytes;
    }

  private:
    uint32_t memoize() { return memo_++; }
    uint32_t dict() { return p_.emptyDict(), memoize(); }
    uint32_t list() { return p_.emptyList(), memoize(); }
    void key(const char* k) { p_.str(k), memoize(); }
    uint32_t text(const std::string& s) { return p_.str(s), memoize(); }
    void boolean(bool b) { p_.op(b ? 0x88 : 0x89); }
    // A short text, or now and then one of a few KB (past what a view shows: util/DisplayText.h).
    uint32_t label() {
        return text(in_.below(8) == 0 ? std::string(4100 + in_.below(64), 'x') : "phase=train");
    }

    // user_metadata (and an 'annotate' label): text, a flat dict, a memo reference to an earlier one
    // (one object shared by many entries: issue 47), or another type (ignored with a warning).
    void metadata() {
        const size_t kind = in_.below(6);
        if (kind == 0 && !metadata_.empty()) return void(p_.get(metadata_[in_.below(metadata_.size())]));
        if (kind == 1) return void(metadata_.push_back(label()));
        if (kind == 2) return void(p_.integer(in_.integer(3)));
        metadata_.push_back(dict());
        p_.mark();
        for (size_t i = 0, n = in_.below(6); i < n; ++i) {
            text(std::to_string(i).insert(0, 1, 'k'));
            if (in_.flag() && !metadata_.empty())
                p_.get(metadata_[in_.below(metadata_.size())]); // a string, or a dict: nested, refused
            else
                p_.integer(in_.integer(int64_t(i)));
        }
        p_.setitems();
    }

    // trace_alloc_overflowed (a bool, a list of bools, or text) and trace_alloc_max_entries (a count,
    // negative, or a list).
    void ringBuffer() {
        key("trace_alloc_overflowed");
        if (const size_t kind = in_.below(3); kind == 0)
            boolean(in_.flag());
        else if (kind == 1)
            text("True");
        else {
            list();
            p_.mark();
            for (size_t i = 0, n = in_.below(4); i < n; ++i) boolean(in_.flag());
            p_.appends();
        }
        key("trace_alloc_max_entries");
        if (in_.flag()) return void(p_.integer(in_.integer(100000)));
        list();
        p_.mark();
        for (size_t i = 0, n = in_.below(4); i < n; ++i) p_.integer(in_.integer(7));
        p_.appends();
    }

    // Pinned host memory: host_segments (a list of segments) and host_traces (a trace list, maybe
    // one a device shares through the memo).
    void hostLane() {
        key("host_segments");
        list();
        p_.mark();
        for (size_t s = 0, n = in_.below(3); s < n; ++s) segment();
        p_.appends();
        key("host_traces");
        trace(0);
    }

    // external_annotations: START/END marks with hostile times and devices (times at +-2^63 made a
    // negative recorder pause: issue 47).
    void externalAnnotations() {
        key("external_annotations");
        list();
        p_.mark();
        for (size_t a = 0, n = in_.below(6); a < n; ++a) {
            dict();
            p_.mark();
            key("name");
            if (in_.flag() && !metadata_.empty())
                p_.get(metadata_[in_.below(metadata_.size())]);
            else
                text("vramscope: recorder paused the program");
            key("stage");
            text(in_.flag() ? "START" : "END");
            key("device");
            p_.integer(in_.below(4) == 0 ? in_.integer(0) : 0);
            key("time_us");
            p_.integer(in_.integer(1700000000000000));
            p_.setitems();
        }
        p_.appends();
    }

    void segment() {
        dict();
        p_.mark();
        key("device");
        p_.integer(in_.below(4) == 3 ? in_.integer(0) : 0);
        const int64_t address = in_.integer(int64_t(1) << 40);
        const int64_t total = in_.integer(2 << 20);
        key("address");
        p_.integer(address);
        key("total_size");
        p_.integer(total);
        key("segment_type");
        text(in_.flag() ? "small" : "large");
        key("blocks");
        if (!blockLists_.empty() && in_.below(4) == 0) {
            p_.get(blockLists_[in_.below(blockLists_.size())]); // a list shared by several segments
        } else {
            blockLists_.push_back(list());
            p_.mark();
            int64_t at = address;
            for (size_t b = 0, n = in_.below(5); b < n; ++b) {
                const int64_t size = in_.integer(512);
                dict();
                p_.mark();
                key("address");
                p_.integer(in_.below(4) == 0 ? in_.integer(at) : at);
                key("size");
                p_.integer(size);
                key("requested_size");
                p_.integer(in_.integer(size));
                key("state");
                text(in_.flag() ? "active_allocated" : in_.flag() ? "inactive" : "active_pending_free");
                key("frames");
                frames();
                p_.setitems();
                at = static_cast<int64_t>(static_cast<uint64_t>(at) + static_cast<uint64_t>(size)); // wraps
            }
            p_.appends();
        }
        p_.setitems();
    }

    void trace(size_t device) {
        if (!traces_.empty() && in_.below(4) == 0) return void(p_.get(traces_[in_.below(traces_.size())]));
        traces_.push_back(list());
        if (device > 2) return; // past a few devices, empty lists: the count is what is tested
        p_.mark();
        static constexpr const char* kActions[] = {
            "alloc",        "free_requested", "free_completed", "segment_alloc",
            "segment_free", "segment_map",    "segment_unmap",  "oom",
            "snapshot",     "bogus",          "annotate"};
        int64_t time = 1700000000000000;
        for (size_t e = 0, n = in_.below(24); e < n; ++e) {
            if (!entries_.empty() && in_.below(8) == 0) { // the same entry listed again
                p_.get(entries_[in_.below(entries_.size())]);
                continue;
            }
            entries_.push_back(dict());
            p_.mark();
            key("action");
            text(kActions[in_.below(11)]);
            key("addr");
            p_.integer(in_.integer(int64_t(1) << 40));
            key("size");
            p_.integer(in_.integer(512));
            key("stream");
            p_.integer(in_.below(4) == 0 ? in_.integer(0) : 0);
            key("time_us");
            time += in_.byte();
            p_.integer(in_.below(8) == 0 ? in_.integer(time) : time);
            key("frames");
            frames();
            if (in_.below(4) == 0) {
                key("user_metadata");
                metadata();
            }
            p_.setitems();
        }
        p_.appends();
    }

    void frames() {
        if (!frameLists_.empty() && in_.flag())
            return void(p_.get(frameLists_[in_.below(frameLists_.size())]));
        frameLists_.push_back(list());
        p_.mark();
        for (size_t f = 0, n = in_.below(4); f < n; ++f) {
            dict();
            p_.mark();
            key("name");
            text("f");
            key("filename");
            text(in_.flag() ? "train.py" : "/site-packages/torch/x.py");
            key("line");
            p_.integer(in_.integer(10));
            p_.setitems();
        }
        p_.appends();
    }

    FuzzBytes& in_;
    test::PickleBuilder p_;
    uint32_t memo_ = 0;
    std::vector<uint32_t> blockLists_, traces_, entries_, frameLists_, metadata_;
};

} // namespace vs::fuzz
