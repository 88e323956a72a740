// The newest snapshot fields (docs/formats.md, "The newest snapshot fields"): read, used and
// reported, from the hand-built snapshots of samples/newest (make_hand_built.py) and the ones a real
// torch wrote (record_newest.py): the ring buffer's overflow flag and size, user_metadata (text and
// dicts), labels put on blocks after the fact ('annotate' entries), ghost blocks, pinned host memory
// as a lane of its own; wrong types ignored with a warning, never a crash.
#include "SharedMetadataShapes.h"
#include "analysis/CaptureAnalysis.h"
#include "analysis/CaptureFacts.h"
#include "io/LoadError.h"
#include "io/LoadMeter.h"
#include "io/SnapshotLoader.h"
#include "io/SnapshotSchema.h"
#include "io/SnapshotWalk.h"
#include "io/UserMetadata.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"
#include "io/VscapWriter.h"
#include "load/OpenAnalysis.h"
#include "util/DisplayText.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include <algorithm>

using namespace vs;

namespace {

constexpr uint64_t MiB = 1 << 20;
constexpr uint64_t kSegment = 0x7F0000000000; // make_hand_built.py's A
constexpr int64_t kT0 = 1'764'000'000'000'000;

std::string newest(const QString& file) {
    return (QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/../newest/") + file).toStdString();
}

bool anyWarning(const std::vector<std::string>& warnings, const std::string& part) {
    return std::any_of(warnings.begin(), warnings.end(),
                       [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& warnings) {
    std::string out;
    for (const auto& w : warnings) out += w + "\n";
    return out;
}

const FactRow* factRow(const std::vector<FactSection>& facts, const std::string& section,
                       const std::string& label) {
    for (const auto& s : facts)
        if (s.title == section)
            for (const auto& r : s.rows)
                if (r.label == label) return &r;
    return nullptr;
}

// Parses a snapshot as the loader does; returns how many user_metadata objects were rendered.
uint64_t metadataRendered(const std::vector<uint8_t>& bytes) {
    Capture c;
    LoadMeter meter(1ull << 30);
    SnapshotSchema schema(c);
    pickle::PickleMachine m(bytes, schema, meter);
    const pickle::Value top = m.run();
    SnapshotWalk(m, schema, c).load(top);
    return schema.metadata().converted();
}

bool endsWith(std::string_view s, std::string_view end) {
    return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// The hand-built snapshot converted to .vscap, with one more Meta record in front of its own:
// ring_buffer = `value` (a chunk of its own, before the converted file's chunks).
std::string withRingBufferMeta(const std::string& value) {
    std::string meta;
    vscap::Writer w([&](std::string_view s) { meta.append(s); });
    w.write(vscap::MetaRecord{vscap::kRingBufferMeta, value});
    w.flush();
    const std::string converted = encodeVscap(*loadSnapshotFile(newest("newest_hand_overflow.pickle")));
    return converted.substr(0, vscap::kHeaderSize) + meta.substr(vscap::kHeaderSize) +
           converted.substr(vscap::kHeaderSize);
}

std::unique_ptr<Capture> loadVscap(const std::string& bytes) {
    return loadVscapBytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

QJsonObject truthOf(const QString& name) {
    QFile f(QString::fromStdString(newest(name + ".truth.json")));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestNewestFields : public QObject {
    Q_OBJECT
  private slots:
    void ringBufferFlagAndSize();
    void lostEntriesWarningIsNotTheLateStartOne();
    void userMetadataTextAndDicts();
    void sharedMetadataIsReadOnce();
    void sharedLabelIsBoundedOnce();
    void displayTextIsCappedWithItsLength();
    void annotateEntriesLabelBlocks();
    void ghostBlocksAreTheOnesSeenOnlyBeingFreed();
    void pinnedHostMemoryIsItsOwnLane_data();
    void pinnedHostMemoryIsItsOwnLane();
    void capturePropertiesShowThem();
    void summaryJsonNamesThem();
    void wrongTypesAreIgnoredWithWarnings();
    void convertKeepsAnnotationsAndRingState();
    void ringBufferMetaIsReadStrictly_data();
    void ringBufferMetaIsReadStrictly();
    void ringBufferMetaMakesNoDevice();
    void hostTracesMayNameTheDevicesEntries();
    void realTorchSnapshots_data();
    void realTorchSnapshots();
};

void TestNewestFields::ringBufferFlagAndSize() {
    const auto over = loadSnapshotFile(newest("newest_hand_overflow.pickle"));
    QCOMPARE(over->devices.front().ringBuffer, RingBuffer::Overflowed);
    QCOMPARE(over->settings.traceMaxEntries, uint64_t(7));
    const auto late = loadSnapshotFile(newest("newest_hand_late.pickle"));
    QCOMPARE(late->devices.front().ringBuffer, RingBuffer::Kept);
    QCOMPARE(late->settings.traceMaxEntries, uint64_t(100000));
    // The host lane has a ring buffer of its own: the device's flag says nothing about it.
    QCOMPARE(over->devices.back().device, kPinnedHostDevice);
    QCOMPARE(over->devices.back().ringBuffer, RingBuffer::Unknown);
}

// Overflowed: entries were lost (at least one per block and segment alive at the first kept entry);
// kept: a late start; silent (an older snapshot, samples/captures/leak_cut): either. Three texts.
void TestNewestFields::lostEntriesWarningIsNotTheLateStartOne() {
    const auto over = openAnalysis(newest("newest_hand_overflow.pickle"));
    const ReplayResult& r = over->replay(0);
    QCOMPARE(r.baselineBlocks, 2u); // the block alive to the end and the ghost, both from before
    QCOMPARE(r.initialState.size(), size_t(1));
    const std::string lost = "at least " +
                             std::to_string(r.baselineBlocks + r.initialState.size() + r.pendingFreeAtStart) +
                             " trace entries were lost to the ring buffer before t = 0.000 s";
    QVERIFY2(anyWarning(over->warnings(), lost), joined(over->warnings()).c_str());
    QVERIFY(anyWarning(over->warnings(), "it keeps the last 7 entries: raise max_entries"));
    QVERIFY(!anyWarning(over->warnings(), "recording started late"));

    const auto late = openAnalysis(newest("newest_hand_late.pickle"));
    const std::string lateText = "recording started late (the ring buffer kept every entry)";
    QVERIFY2(anyWarning(late->warnings(), lateText), joined(late->warnings()).c_str());
    QVERIFY(!anyWarning(late->warnings(), "lost to the ring buffer"));

    const auto old = openAnalysis(QStringLiteral(VRAMSCOPE_SAMPLES_DIR "/leak_cut.pickle.gz").toStdString());
    QVERIFY(anyWarning(old->warnings(), "recording started late or the ring buffer (max_entries) dropped"));
    QVERIFY(!anyWarning(old->warnings(), lateText) &&
            !anyWarning(old->warnings(), "lost to the ring buffer"));
}

void TestNewestFields::userMetadataTextAndDicts() {
    const auto c = loadSnapshotFile(newest("newest_hand_overflow.pickle"));
    const DeviceTrace& t = c->devices.front();
    QCOMPARE(t.eventCount(), size_t(6)); // the 'annotate' entry is no allocator event
    QCOMPARE(t.userMetadata.size(), size_t(2));
    const auto [first, firstText] = t.userMetadata[0];
    const auto [second, secondText] = t.userMetadata[1];
    QCOMPARE(t.action[first], Action::Alloc);
    QCOMPARE(t.size[first], 4 * MiB);
    QCOMPARE(c->strings.text(firstText), std::string_view("phase=train"));
    QCOMPARE(t.size[second], 3 * MiB);
    QCOMPARE(c->strings.text(secondText), std::string_view("step: 3, pool: comm")); // a dict, in file order
    QVERIFY(!anyWarning(c->warnings, "unknown action"));
}

// One dict of 2,000 items named by 500 allocations through the memo (the 700 KB case of issue 47,
// smaller): rendered once, not per reference, and every entry names the one interned text, cut.
void TestNewestFields::sharedMetadataIsReadOnce() {
    const auto bytes = test::sharedMetadataSnapshot({2000, 0, 500, false});
    QCOMPARE(metadataRendered(bytes), uint64_t(1));
    const auto c = loadSnapshotBytes(bytes);
    const DeviceTrace& t = c->devices.front();
    QCOMPARE(t.userMetadata.size(), size_t(500));
    QVERIFY(std::all_of(t.userMetadata.begin(), t.userMetadata.end(),
                        [&](const auto& e) { return e.second == t.userMetadata.front().second; }));
    const auto text = c->strings.text(t.userMetadata.front().second);
    QVERIFY(text.rfind("k0: 0, k1: 1, ", 0) == 0);
    QVERIFY2(endsWith(text, "\u2026 (2000 items)"), std::string(text.substr(text.size() - 40)).c_str());
    QVERIFY(text.size() <= kMaxDictMetadataBytes + 32);
    // a compile_context string shared alike: hashed once, not per entry
    const auto context = test::sharedMetadataSnapshot({0, 5000, 300, false, "compile_context"});
    QCOMPARE(metadataRendered(context), uint64_t(1));
    const auto cc = loadSnapshotBytes(context);
    const auto& contexts = cc->devices.front().compileContext;
    QCOMPARE(contexts.size(), size_t(300));
    QCOMPARE(cc->strings.text(contexts.back().second).size(), size_t(5000));
}

// 'annotate' labels that are one dict whose 170 values all name one 280 KB string (the 317 KB case,
// whose label was 48 MB): rendered once, cut at kMaxDictMetadataBytes, every label the same text.
void TestNewestFields::sharedLabelIsBoundedOnce() {
    const auto bytes = test::sharedMetadataSnapshot({170, 280000, 60, true});
    QCOMPARE(metadataRendered(bytes), uint64_t(1));
    const auto c = loadSnapshotBytes(bytes);
    QCOMPARE(c->blockAnnotations.size(), size_t(60));
    const StringId first = c->blockAnnotations.front().text;
    QVERIFY(std::all_of(c->blockAnnotations.begin(), c->blockAnnotations.end(),
                        [&](const BlockAnnotation& a) { return a.text == first; }));
    const auto text = c->strings.text(first);
    QVERIFY(text.rfind("k0: xxxx", 0) == 0);
    QVERIFY(endsWith(text, "\u2026 (170 items)"));
    QVERIFY(text.size() <= kMaxDictMetadataBytes + 32);
    size_t total = 0; // the model holds the 280 KB string once (no 48 MB text)
    for (size_t i = 0; i < c->strings.size(); ++i) total += c->strings.text(StringId{uint32_t(i)}).size();
    QVERIFY2(total < 300'000, std::to_string(total).c_str());
}

// A label as long as the file (a 48 MB string is legal): shown cut at a character, its length said.
void TestNewestFields::displayTextIsCappedWithItsLength() {
    const std::string label = "\u00e9" + std::string(48 << 20, 'a'); // a two-byte character first
    const std::string shown = displayText(label, "label");
    QVERIFY(shown.size() < kDisplayTextBytes + 40);
    QVERIFY(shown.rfind("\u00e9aaa", 0) == 0);
    QVERIFY(endsWith(shown, "\u2026 (48.00 MiB label)"));
    QCOMPARE(displayText("kept for logging", "label"), std::string("kept for logging"));
    QCOMPARE(cutAtCharacter("a\u00e9", 2), std::string_view("a")); // never half of the é
    QCOMPARE(cutAtCharacter("a\u00e9", 3), std::string_view("a\u00e9"));
    // Capture Properties (and so the GUI's dialog) show it so
    auto c = std::make_unique<Capture>();
    c->devices.emplace_back().device = 0;
    c->blockAnnotations.push_back({0, kT0, kSegment, c->strings.intern(label), StackId{0}});
    const auto facts = captureFacts(*CaptureAnalysis::analyse(std::move(c)), 0);
    bool capped = false;
    for (const auto& s : facts)
        for (const auto& r : s.rows) capped |= endsWith(r.value, "\u2026 (48.00 MiB label)");
    QVERIFY(capped);
}

void TestNewestFields::annotateEntriesLabelBlocks() {
    const auto c = loadSnapshotFile(newest("newest_hand_overflow.pickle"));
    QCOMPARE(c->blockAnnotations.size(), size_t(1));
    const BlockAnnotation& n = c->blockAnnotations.front();
    QCOMPARE(n.device, 0);
    QCOMPARE(n.address, kSegment + 2 * MiB);
    QCOMPARE(n.timeUs, kT0 + 3);
    QCOMPARE(c->strings.text(n.text), std::string_view("kept for logging"));
    const auto frames = c->stacks.frames(n.stack);
    QCOMPARE(frames.size(), size_t(1));
    QCOMPARE(c->strings.text(c->frames[frames[0]].name), std::string_view("keep_for_logging"));
}

void TestNewestFields::ghostBlocksAreTheOnesSeenOnlyBeingFreed() {
    const auto a = openAnalysis(newest("newest_hand_overflow.pickle"));
    const GhostBlocks& g = a->ghosts(0);
    QCOMPARE(g.blocks.size(), size_t(1));
    QCOMPARE(g.blocks[0].address, kSegment + 6 * MiB);
    QCOMPARE(g.blocks[0].size, 2 * MiB);
    QCOMPARE(a->trace(0).action[g.blocks[0].freeEvent], Action::FreeRequested);
    QCOMPARE(g.bytes, 2 * MiB);
    QVERIFY(g.contains(kSegment + 6 * MiB));
    QVERIFY(!g.contains(kSegment));       // from before too, but alive to the end: a baseline, not a ghost
    QVERIFY(a->ghosts(1).blocks.empty()); // the host trace saw every block allocated
}

void TestNewestFields::pinnedHostMemoryIsItsOwnLane_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("host_traces as a list per device") << "newest_hand_overflow.pickle";
    QTest::newRow("host_traces as one list") << "newest_hand_late.pickle";
}

void TestNewestFields::pinnedHostMemoryIsItsOwnLane() {
    QFETCH(QString, file);
    const auto a = openAnalysis(newest(file));
    QCOMPARE(a->deviceCount(), size_t(2));
    const int host = a->indexOfDevice(kPinnedHostDevice);
    QCOMPARE(host, 1); // after every GPU: device 0 stays the one a view opens on
    const DeviceTrace& t = a->trace(size_t(host));
    QCOMPARE(t.eventCount(), size_t(7));
    QVERIFY(std::is_sorted(t.timeUs.begin(), t.timeUs.end()));
    QCOMPARE(t.finalSegments.size(), size_t(1));
    const DeviceSummary s = a->summary(size_t(host));
    QCOMPARE(s.final.allocated, int64_t(2 * MiB));
    QCOMPARE(s.peak.reserved, int64_t(3 * MiB));
    QVERIFY(a->replay(size_t(host)).finalMatchesSnapshot);
    QCOMPARE(deviceName(kPinnedHostDevice), std::string("pinned host memory"));
}

void TestNewestFields::capturePropertiesShowThem() {
    const auto a = openAnalysis(newest("newest_hand_overflow.pickle"));
    const auto facts = captureFacts(*a, 0);
    const FactRow* ring = factRow(facts, "Device 0", "Ring buffer");
    QVERIFY(ring && ring->value == "overflowed: entries before the first one kept were lost (max_entries 7)");
    const FactRow* ghosts = factRow(facts, "Device 0", "Ghost blocks (seen only being freed)");
    QVERIFY(ghosts && ghosts->value.rfind("1 (", 0) == 0);
    QVERIFY(factRow(facts, "Pinned host memory", "Events"));
    const FactRow* conf = factRow(facts, "Allocator settings", "PYTORCH_CUDA_ALLOC_CONF"); // '' in the pickle
    QVERIFY(conf && conf->value == "(not set)");
    bool train = false, dict = false, note = false;
    for (const auto& s : facts)
        if (s.title == "Snapshot metadata")
            for (const auto& r : s.rows) {
                train |= r.label == "user_metadata" && r.value == "phase=train (1 entries)";
                dict |= r.label == "user_metadata" && r.value == "step: 3, pool: comm (1 entries)";
                note |= r.label.find("block 0x7f0000200000") != std::string::npos &&
                        r.value == "kept for logging";
            }
    QVERIFY(train && dict && note);
    const auto late = captureFacts(*openAnalysis(newest("newest_hand_late.pickle")), 0);
    const FactRow* kept = factRow(late, "Device 0", "Ring buffer");
    QVERIFY(kept && kept->value == "kept every entry (max_entries 100000)");
}

void TestNewestFields::summaryJsonNamesThem() {
    QProcess p;
    p.start(QStringLiteral(VRAMSCOPE_CLI),
            {"summary", "--json", QString::fromStdString(newest("newest_hand_overflow.pickle"))});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject o = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    const QJsonArray devices = o["devices"].toArray();
    QCOMPARE(devices.size(), 2);
    QCOMPARE(devices[0].toObject()["ring_buffer"].toString(), QStringLiteral("overflowed"));
    QCOMPARE(devices[0].toObject()["ghost_blocks"].toInt(), 1);
    QCOMPARE(devices[0].toObject()["ghost_bytes"].toInteger(), qint64(2 * MiB));
    QCOMPARE(devices[1].toObject()["device"].toInt(), kPinnedHostDevice);
    QCOMPARE(devices[1].toObject()["name"].toString(), QStringLiteral("pinned host memory"));
    QCOMPARE(devices[1].toObject()["ring_buffer"].toString(), QStringLiteral("unknown"));
}

// make_hand_built.py's badtypes: a string for the flag, a number and a nested dict for user_metadata,
// an 'annotate' entry without an address, host fields that are no lists. It loads, says each, and
// uses none of them.
void TestNewestFields::wrongTypesAreIgnoredWithWarnings() {
    std::unique_ptr<Capture> c;
    try {
        c = loadSnapshotFile(newest("newest_hand_badtypes.pickle"));
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    const auto& w = c->warnings;
    QVERIFY2(anyWarning(w, "'trace_alloc_overflowed' is neither a bool nor a list of bools: ignored"),
             joined(w).c_str());
    QVERIFY(anyWarning(w, "'host_segments' is not a list"));
    QVERIFY(anyWarning(w, "'host_traces' is neither a list of trace entries nor a list of such lists"));
    QVERIFY(anyWarning(w, "1 'annotate' entries have no address or no plausible time_us"));
    QVERIFY(anyWarning(w, "2 trace entries have a user_metadata that is neither text nor a flat dict"));
    QCOMPARE(c->devices.size(), size_t(1)); // no host lane
    QCOMPARE(c->devices[0].ringBuffer, RingBuffer::Unknown);
    QVERIFY(c->devices[0].userMetadata.empty());
    QVERIFY(c->blockAnnotations.empty());
    QCOMPARE(c->devices[0].eventCount(), size_t(6));
}

// What torch 2.11 wrote on an H200 (record_newest.py): each field it writes is read, and each it
// does not write is absent without a complaint.
// vramscope-cli convert (encodeVscap) of a snapshot with every newest field: the block annotations
// and each device's ring-buffer state come back from the .vscap as they were, so the converted file
// warns as the snapshot does.
void TestNewestFields::convertKeepsAnnotationsAndRingState() {
    const auto snap = loadSnapshotFile(newest("newest_hand_overflow.pickle"));
    const std::string bytes = encodeVscap(*snap);
    const auto back = loadVscapBytes({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    QVERIFY(back);
    QCOMPARE(back->blockAnnotations.size(), snap->blockAnnotations.size());
    QVERIFY(!back->blockAnnotations.empty());
    for (size_t i = 0; i < snap->blockAnnotations.size(); ++i) {
        const BlockAnnotation &a = snap->blockAnnotations[i], &b = back->blockAnnotations[i];
        QCOMPARE(b.device, a.device);
        QCOMPARE(b.timeUs, a.timeUs);
        QCOMPARE(b.address, a.address);
        QCOMPARE(back->strings.text(b.text), snap->strings.text(a.text));
        QCOMPARE(b.stack.value == 0, a.stack.value == 0);
    }
    QCOMPARE(back->devices.size(), snap->devices.size());
    for (size_t d = 0; d < snap->devices.size(); ++d)
        QCOMPARE(back->devices[d].ringBuffer, snap->devices[d].ringBuffer);
    QCOMPARE(back->settings.traceMaxEntries, snap->settings.traceMaxEntries);
    QVERIFY(std::none_of(back->meta.begin(), back->meta.end(), [](const auto& kv) {
        return kv.first == "ring_buffer";
    })); // state, not a listed fact
    // and converting the converted file changes nothing more
    const std::string again = encodeVscap(*back);
    const auto twice = loadVscapBytes({reinterpret_cast<const uint8_t*>(again.data()), again.size()});
    QCOMPARE(twice->blockAnnotations.size(), back->blockAnnotations.size());
    QCOMPARE(twice->devices.front().ringBuffer, RingBuffer::Overflowed);
}

// The .vscap ring_buffer meta record: "-5" printed as 18446744073709551611 (sscanf's %llu), issue 47.
void TestNewestFields::ringBufferMetaIsReadStrictly_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative max entries") << "0 kept -5"
                                          << "max entries '-5' is not a count";
    QTest::newRow("max entries past 64 bits") << "0 kept 18446744073709551616"
                                              << "is not a count";
    QTest::newRow("signed max entries") << "0 kept +5"
                                        << "max entries '+5' is not a count";
    QTest::newRow("negative device") << "-1 kept 5"
                                     << "the device ordinal '-1' is not a count up to 65535";
    QTest::newRow("device past the format's") << "65536 kept"
                                              << "the device ordinal '65536'";
    QTest::newRow("hex device") << "0x1 kept"
                                << "the device ordinal '0x1'";
    QTest::newRow("a fourth word") << "0 kept 5 more"
                                   << "it has 4 words";
    QTest::newRow("one word") << "0"
                              << "it has 1 words";
    QTest::newRow("two spaces") << "0  kept"
                                << "max entries 'kept' is not a count";
}

void TestNewestFields::ringBufferMetaIsReadStrictly() {
    QFETCH(QString, value);
    QFETCH(QString, message);
    try {
        const auto c = loadVscap(withRingBufferMeta(value.toStdString()));
        QFAIL(qPrintable("read: max_entries " + QString::number(c->settings.traceMaxEntries)));
    } catch (const LoadError& e) {
        QVERIFY2(QString(e.what()).contains(message), e.what());
        QVERIFY2(QString(e.what()).contains("the ring_buffer meta record '" + value + "'"), e.what());
    }
}

// A ring_buffer state for device 7, which no record names: no device 7, no lane; a state that comes
// before its device's events is still that device's.
void TestNewestFields::ringBufferMetaMakesNoDevice() {
    const auto plain = loadVscap(withRingBufferMeta("0 overflowed 7"));
    const auto c = loadVscap(withRingBufferMeta("7 kept 100"));
    QCOMPARE(c->devices.size(), plain->devices.size());
    QVERIFY(std::none_of(c->devices.begin(), c->devices.end(), [](const auto& d) { return d.device == 7; }));
    QCOMPARE(CaptureAnalysis::analyse(loadVscap(withRingBufferMeta("7 kept 100")))->deviceCount(),
             plain->devices.size());
    QCOMPARE(plain->devices.front().ringBuffer, RingBuffer::Overflowed); // its own, written before its events
    QCOMPARE(plain->settings.traceMaxEntries, uint64_t(7));
}

// host_traces a memo reference to the one device's trace list (found by fuzzing, issue 47): the
// device took the entries' columns whole, and the host lane read the moved-from columns (SEGV). Both
// lanes have the entries; 'device_traces' twice is refused.
void TestNewestFields::hostTracesMayNameTheDevicesEntries() {
    const auto snapshot = [](bool twice) {
        test::PickleBuilder p;
        p.proto(4).emptyDict().mark().key("segments").emptyList().key("device_traces").emptyList().mark();
        const uint32_t trace = p.memoCount();
        p.emptyList().mark();
        for (int64_t i = 0; i < 3; ++i) {
            p.emptyDict().mark().key("action").key("alloc").key("addr").integer(0x100000 + 512 * i);
            p.key("size").integer(512).key("time_us").integer(kT0 + i).setitems();
        }
        p.appends().appends();
        if (twice) p.key("device_traces").get(trace - 1);
        return p.key("host_traces").get(trace).setitems().stop().bytes;
    };
    const auto c = loadSnapshotBytes(snapshot(false));
    QCOMPARE(c->devices.size(), size_t(2));
    QCOMPARE(c->devices[0].eventCount(), size_t(3));
    QCOMPARE(c->devices[1].device, kPinnedHostDevice);
    QCOMPARE(c->devices[1].eventCount(), size_t(3));
    QCOMPARE(c->devices[1].timeUs[2], kT0 + 2);
    QCOMPARE(c->devices[1].addr[2], c->devices[0].addr[2]);
    try {
        loadSnapshotBytes(snapshot(true));
        QFAIL("read 'device_traces' twice");
    } catch (const LoadError& e) {
        QVERIFY2(QString(e.what()).contains("'device_traces' appears twice"), e.what());
    }
}

void TestNewestFields::realTorchSnapshots_data() {
    QTest::addColumn<QString>("name");
    for (const char* n : {"metadata", "ring", "late", "pinned"})
        if (QFile::exists(QString::fromStdString(newest(QStringLiteral("newest_%1.pickle.gz").arg(n)))))
            QTest::newRow(n) << QStringLiteral("newest_%1").arg(n);
    if (QTest::currentTestFunction() &&
        !QFile::exists(QString::fromStdString(newest("newest_metadata.pickle.gz"))))
        QTest::newRow("none recorded") << QString();
}

void TestNewestFields::realTorchSnapshots() {
    QFETCH(QString, name);
    if (name.isEmpty()) QSKIP("no snapshot recorded by a real torch in samples/newest");
    const QJsonObject truth = truthOf(name);
    QVERIFY(!truth.isEmpty());
    const auto a = openAnalysis(newest(name + ".pickle.gz"));
    const int dev = a->indexOfDevice(0);
    QVERIFY(dev >= 0);
    const DeviceSummary s = a->summary(size_t(dev));
    QCOMPARE(s.final.allocated, truth["allocated"].toInteger());
    QCOMPARE(s.final.reserved, truth["reserved"].toInteger());
    const Capture& c = a->capture();
    // user_metadata: every value torch wrote (repr'd in the truth) is one the reader has.
    std::vector<std::string> texts;
    for (const auto& [i, text] : c.devices[size_t(dev)].userMetadata)
        texts.emplace_back(c.strings.text(text));
    for (const auto& v : truth["user_metadata"].toArray()) {
        QString repr = v.toString();
        repr = repr.mid(1, repr.size() - 2); // 'phase=train' -> phase=train
        QVERIFY2(std::find(texts.begin(), texts.end(), repr.toStdString()) != texts.end(), qPrintable(repr));
    }
    const QJsonObject actions = truth["actions"].toObject();
    QCOMPARE(c.blockAnnotations.size(), size_t(actions["annotate"].toInt()));
    const QJsonObject settings = truth["allocator_settings"].toObject();
    const RingBuffer ring = c.devices[size_t(dev)].ringBuffer;
    if (!settings.contains("trace_alloc_overflowed"))
        QCOMPARE(ring, RingBuffer::Unknown);
    else
        QCOMPARE(ring, settings["trace_alloc_overflowed"].toString() == "True" ? RingBuffer::Overflowed
                                                                               : RingBuffer::Kept);
    if (ring == RingBuffer::Overflowed) QVERIFY(anyWarning(a->warnings(), "lost to the ring buffer"));
    // A host lane exactly when torch wrote pinned host memory's segments or entries.
    QCOMPARE(a->indexOfDevice(kPinnedHostDevice) >= 0,
             truth.contains("host_segments_first") || truth.contains("host_traces_first"));
    QVERIFY(!anyWarning(a->warnings(), "unknown action"));
}

QTEST_APPLESS_MAIN(TestNewestFields)
#include "tst_newest_fields.moc"
