#pragma once
// Decodes the records of .vscap chunks into a Capture, mapping the file's string/frame/stack/stream
// ids onto the capture's own tables. Every id and length is checked: records come from files.
#include "model/Capture.h"

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace vs::vscap {

class Records {
  public:
    static constexpr size_t kPadding = 16; // readable bytes the caller guarantees after `raw`
    explicit Records(Capture& c);
    // Decodes one chunk's records; `raw` must be followed by kPadding readable bytes. `offset` is the chunk's
    // position, for error messages.
    void read(std::span<const uint8_t> raw, uint64_t offset);
    // Event-count hints (Reserve records) are honoured up to this many events; 0 ignores them.
    void setReserveLimit(uint64_t events) { reserveLimit_ = events; }
    // The memory the decoded model may take (LoadOptions::maxMemory): event columns are charged
    // exactly before they grow, other records by a bound on what their bytes can allocate.
    // `bound` > 0: the budget is that many times the file's `fileBytes` (a decompression bomb), not
    // LoadOptions::maxMemory; the refusal says so.
    void setMemoryBudget(uint64_t bytes, uint64_t bound = 0, uint64_t fileBytes = 0) {
        budget_ = bytes, bound_ = bound, fileBytes_ = fileBytes;
    }
    uint64_t charged() const { return charged_ + eventBytes_; }
    bool ended() const { return ended_; }
    // A Part record was read (alone in its chunk): the records after it go to a new Records over
    // the capture's cudaLevel (level 1, the CUPTI agent's recording of the same process).
    uint64_t partLevel() const { return partLevel_; }
    uint64_t dropped() const { return dropped_; }
    uint64_t linesOutOfRange() const {
        return linesOutOfRange_;
    } // frames whose line was read as 0 (LineRange.h)

  private:
    class Body;
    void record(uint32_t kind, Body& b);
    void string(Body& b);
    void frame(Body& b);
    void stack(Body& b);
    void device(Body& b);
    void settings(Body& b);
    void events(Body& b);
    [[noreturn]] void implausibleTime(Body& b, const DeviceTrace& d, size_t first, int64_t base);
    int64_t plausibleTime(Body& b, int64_t t, const char* what);
    void annotation(Body& b, bool mark);
    void segments(Body& b);
    void eventText(Body& b);
    void blockAnnotation(Body& b);
    void ringBuffer(Body& b, std::string_view value);
    void meta(Body& b);
    void retention(Body& b);
    void tags(Body& b);
    void driverMemory(Body& b);
    DeviceTrace& trace(int ordinal); // made on first use
    DeviceTrace* existingTrace(int ordinal);
    void charge(uint64_t otherBytes, uint64_t newEventBytes = 0);
    void growEvents(DeviceTrace& d, uint64_t events);
    [[noreturn]] void overBudget() const;
    StringId stringId(uint64_t fileId) const;
    StackId stackId(uint64_t fileId) const;

    Capture& c_;
    std::vector<StringId> strings_{StringId{0}};
    std::vector<FrameId> frames_;
    std::vector<StackId> stacks_{StackId{0}};
    std::vector<StreamId> streams_;
    std::vector<FrameId> frameScratch_;
    uint64_t reserveLimit_ = 0;
    uint64_t budget_ = UINT64_MAX;
    uint64_t bound_ = 0, fileBytes_ = 0;
    uint64_t charged_ = 0;    // records other than events
    uint64_t eventBytes_ = 0; // event columns of every device
    bool ended_ = false;
    uint64_t partLevel_ = 0;
    uint64_t dropped_ = 0;
    uint64_t linesOutOfRange_ = 0;
    std::map<int, RingBuffer> pendingRing_; // ring_buffer states of devices no record has named yet
};

} // namespace vs::vscap
