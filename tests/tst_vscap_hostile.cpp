// Hostile and damaged .vscap files: a decompression bomb is refused within the load's memory budget
// (peak RSS and time asserted), a damaged chunk is told apart from a file that merely ends early,
// every damaged byte names the chunk it is in, and the part before the damage can be opened.
#include "TestData.h"
#include "io/CaptureFile.h"
#include "io/DamagedCapture.h"
#include "io/LoadError.h"
#include "io/VscapExport.h"
#include "io/VscapReader.h"

#include <QElapsedTimer>
#include <QtTest>

#include <sys/resource.h>
#include <zlib.h>
#include <zstd.h>

using namespace vs;

class TestVscapHostile : public QObject {
    Q_OBJECT
  private slots:
    // First: the bound on peak RSS is measured against this process's peak so far.
    void bombIsRefusedWithinTheBudget();
    void recordFloodIsRefusedWithinTheBudget();
    void bombWithinTheBudgetLoads();
    void everyFlippedByteIsDamageAtItsChunk();
    void sizeFieldOfTheLastChunkIsDamageNotACut();
    void cutIsNeverDamage();
    void intactPartOpensWithAWarning();
};

namespace {

std::span<const uint8_t> span(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

long peakRssKiB() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

// One zstd chunk whose raw bytes are `head` then `unit` repeated `times`, compressed piece by piece:
// the test itself never holds the decompressed bytes, so its peak RSS is the loader's.
std::string chunkOf(const std::string& head, const std::string& unit, uint64_t times) {
    std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
    std::string stored, out(ZSTD_CStreamOutSize(), '\0');
    const uint64_t per = std::max<uint64_t>(1, (1u << 20) / unit.size());
    std::string piece;
    for (uint64_t i = 0; i < per; ++i) piece += unit;
    uint64_t raw = 0;
    auto feed = [&](std::string_view in, ZSTD_EndDirective end) {
        ZSTD_inBuffer ib{in.data(), in.size(), 0};
        size_t left;
        do {
            ZSTD_outBuffer ob{out.data(), out.size(), 0};
            left = ZSTD_compressStream2(cctx.get(), &ob, &ib, end);
            stored.append(out.data(), ob.pos);
        } while (ib.pos < ib.size || (end == ZSTD_e_end && left));
        raw += in.size();
    };
    feed(head, ZSTD_e_continue);
    for (uint64_t done = 0; done < times; done += per)
        feed(std::string_view(piece).substr(0, std::min(per, times - done) * unit.size()), ZSTD_e_continue);
    feed({}, ZSTD_e_end);
    vscap::ByteWriter h;
    h.raw(vscap::kChunkMagic, 4), h.u8(uint8_t(vscap::Codec::Zstd)), h.u8(0), h.u8(0), h.u8(0);
    h.u32(uint32_t(stored.size())), h.u32(uint32_t(raw));
    h.u32(uint32_t(crc32(0, reinterpret_cast<const Bytef*>(stored.data()), uInt(stored.size()))));
    return h.str() + stored;
}

std::string header() {
    std::string out;
    vscap::Writer w([&](std::string_view s) { out.append(s); });
    return out;
}

std::string record(vscap::Record kind, const std::function<void(vscap::ByteWriter&)>& body) {
    vscap::ByteWriter b, r;
    body(b);
    r.varint(uint64_t(kind)), r.varint(b.size()), r.bytes(b.str());
    return r.str();
}

// `chunks` chunks, each one Events record of `events` all-zero events (~6 raw bytes each), after a
// Stream record: a few KB that decode to millions of events.
std::string bomb(int chunks, uint64_t events) {
    std::string out = header();
    for (int c = 0; c < chunks; ++c) {
        std::string head = c ? "" : record(vscap::Record::Stream, [](auto& b) { b.varint(0); });
        vscap::ByteWriter e; // the Events record's kind, length and fields before its columns
        e.varint(uint64_t(vscap::Record::Events));
        vscap::ByteWriter fields;
        fields.svarint(0), fields.varint(events), fields.svarint(0);
        e.varint(fields.size() + events * 6), e.bytes(fields.str());
        out += chunkOf(head + e.str(), std::string(1, '\0'), events * 6);
    }
    return out;
}

// Where each chunk starts, in a well-formed stream.
std::vector<size_t> chunkStarts(const std::string& bytes) {
    std::vector<size_t> starts;
    for (size_t p = vscap::kHeaderSize; p < bytes.size();) {
        starts.push_back(p);
        uint32_t stored;
        std::memcpy(&stored, bytes.data() + p + 8, 4);
        p += vscap::kChunkHeaderSize + stored;
    }
    return starts;
}

// A real capture in many small chunks.
std::string sampleInChunks() {
    const auto a = loadCaptureFile(test::samplePath("mixed_sizes"), {});
    vscap::Writer::Options o;
    o.chunkBytes = 400;
    o.eventsPerRecord = 40;
    return encodeVscap(*a, o);
}

size_t eventsOf(const Capture& c) {
    size_t n = 0;
    for (const auto& d : c.devices) n += d.eventCount();
    return n;
}

} // namespace

// Issue 19's file: five chunks of 64 MiB, 10 KB on disk, 56M events. Refused with the default
// budget (half the RAM) because no recording expands 4096 times; and under a small --max-memory.
void TestVscapHostile::bombIsRefusedWithinTheBudget() {
    const uint64_t perChunk = (vscap::kMaxChunkBytes - 64) / 6;
    const std::string bytes = bomb(5, perChunk);
    QVERIFY2(bytes.size() < 64 * 1024, "the bomb is a few KB");
    for (const uint64_t budget : {uint64_t(0), uint64_t(24) << 20}) {
        LoadOptions o;
        if (budget) o.maxMemory = budget;
        const long before = peakRssKiB();
        QElapsedTimer timer;
        timer.start();
        try {
            loadVscapBytes(span(bytes), o);
            QFAIL("a decompression bomb was loaded");
        } catch (const LoadError& e) {
            const QString want = budget
                                     ? "this file would need more than 24 MiB of memory; raise --max-memory"
                                     : "would expand to more than 4096 times their size in memory";
            QVERIFY2(QString(e.what()).contains(want), e.what());
        }
        const long grewMiB = (peakRssKiB() - before) / 1024;
        qInfo("bomb of %zu bytes (%llu events claimed), budget %s: refused in %lld ms, peak RSS grew %ld MiB",
              bytes.size(), static_cast<unsigned long long>(5 * perChunk), budget ? "24 MiB" : "default",
              static_cast<long long>(timer.elapsed()), grewMiB);
        // The 64 MiB chunk buffer is what it takes; the model it would decode to is refused first.
        QVERIFY2(grewMiB < 64 + 16, "peak RSS grew past the chunk buffer");
        QVERIFY2(timer.elapsed() < 10000, "refusing the bomb took more than 10 s");
    }
}

void TestVscapHostile::recordFloodIsRefusedWithinTheBudget() {
    // One chunk of 60 MiB holding ten million tiny Annotation records: each would allocate.
    const std::string annotation =
        record(vscap::Record::Annotation, [](auto& a) { a.svarint(0), a.svarint(0), a.u8(0), a.varint(1); });
    const std::string out = header() + chunkOf(record(vscap::Record::String, [](auto& b) { b.bytes("x"); }),
                                               annotation, 10'000'000);
    const long before = peakRssKiB();
    try {
        loadVscapBytes(span(out));
        QFAIL("a flood of records was loaded");
    } catch (const LoadError& e) {
        QVERIFY2(QString(e.what()).contains("would expand to more than 4096 times"), e.what());
    }
    const long grewMiB = (peakRssKiB() - before) / 1024;
    qInfo("record flood of %zu bytes: peak RSS grew %ld MiB", out.size(), grewMiB);
    QVERIFY2(grewMiB < 64 + 64, "peak RSS passed the chunk buffer and the file's bound");
}

void TestVscapHostile::bombWithinTheBudgetLoads() {
    // The same shape, small enough for its budget: read, and its events counted exactly.
    const std::string bytes = bomb(2, 1000);
    LoadOptions o;
    o.maxMemory = 2000 * DeviceTrace::kBytesPerEvent + (1u << 20);
    const auto c = loadVscapBytes(span(bytes), o);
    QCOMPARE(eventsOf(*c), size_t(2000));
    o.maxMemory = 1500 * DeviceTrace::kBytesPerEvent; // and refused one chunk later with less
    QVERIFY_THROWS_EXCEPTION(LoadError, loadVscapBytes(span(bytes), o));
}

void TestVscapHostile::everyFlippedByteIsDamageAtItsChunk() {
    const std::string bytes = sampleInChunks();
    const auto starts = chunkStarts(bytes);
    QVERIFY(starts.size() > 20);
    size_t flips = 0;
    for (size_t i = vscap::kHeaderSize; i < bytes.size(); i += 1 + i % 7) {
        const size_t chunk = size_t(std::upper_bound(starts.begin(), starts.end(), i) - starts.begin()) - 1;
        const size_t inChunk = i - starts[chunk];
        if (inChunk >= 5 && inChunk < 8) continue; // the three reserved zero bytes are not read
        std::string damaged = bytes;
        damaged[i] = char(damaged[i] ^ 0x20);
        try {
            loadVscapBytes(span(damaged));
            QFAIL(qPrintable(QString("a flip at byte %1 went unnoticed").arg(i)));
        } catch (const DamagedCapture& e) {
            QCOMPARE(e.damagedAt(), uint64_t(starts[chunk]));
            QCOMPARE(e.intactChunks(), uint64_t(chunk));
            QVERIFY2(QString(e.what()).startsWith(
                         QString("the capture is damaged at byte %1 (").arg(starts[chunk])),
                     e.what());
        }
        ++flips;
    }
    QVERIFY(flips > 1000);
}

void TestVscapHostile::sizeFieldOfTheLastChunkIsDamageNotACut() {
    const std::string bytes = sampleInChunks();
    const auto starts = chunkStarts(bytes);
    for (size_t chunk : {size_t(0), starts.size() / 2, starts.size() - 1}) {
        std::string damaged = bytes;
        uint32_t stored;
        std::memcpy(&stored, damaged.data() + starts[chunk] + 8, 4);
        stored += 1000; // still under the 64 MiB limit: only the data after it can tell
        std::memcpy(damaged.data() + starts[chunk] + 8, &stored, 4);
        try {
            loadVscapBytes(span(damaged));
            QFAIL("a wrong size field was read as a cut");
        } catch (const DamagedCapture& e) {
            QCOMPARE(e.damagedAt(), uint64_t(starts[chunk]));
            QVERIFY2(QString(e.what()).contains("size field disagrees with the data after it"), e.what());
        }
    }
}

void TestVscapHostile::cutIsNeverDamage() {
    const std::string bytes = sampleInChunks();
    size_t warned = 0;
    size_t cuts = 0;
    for (size_t cut = vscap::kHeaderSize + 1; cut < bytes.size(); cut += 5, ++cuts) {
        try {
            const auto c = loadVscapBytes(span(bytes).first(cut));
            warned += !c->warnings.empty() && (c->warnings[0].find("cut off") != std::string::npos ||
                                               c->warnings[0].find("did not finish") != std::string::npos);
        } catch (const DamagedCapture& e) {
            QFAIL(qPrintable(QString("a file cut at %1 read as damaged: %2").arg(cut).arg(e.what())));
        } catch (const LoadError& e) { // cut before the first events
            QVERIFY2(QString(e.what()).contains("no allocator events"), e.what());
        }
    }
    QVERIFY(warned > cuts * 9 / 10);
}

void TestVscapHostile::intactPartOpensWithAWarning() {
    const std::string bytes = sampleInChunks();
    const auto starts = chunkStarts(bytes);
    const size_t chunk = starts.size() / 2;
    std::string damaged = bytes;
    damaged[starts[chunk] + vscap::kChunkHeaderSize + 3] ^= 0x01; // in the data: the checksum fails
    LoadOptions o;
    o.openIntactPart = true;
    const auto part = loadVscapBytes(span(damaged), o);
    // Exactly what a file cut right before the damaged chunk holds.
    const auto cut = loadVscapBytes(span(bytes).first(starts[chunk]));
    QCOMPARE(eventsOf(*part), eventsOf(*cut));
    QVERIFY(eventsOf(*part) > 0);
    QVERIFY(!part->warnings.empty());
    QVERIFY2(part->warnings[0] == "the capture is damaged at byte " + std::to_string(starts[chunk]) +
                                      " (a chunk's checksum does not match its data): only the " +
                                      std::to_string(chunk) + " chunks before it were read",
             part->warnings[0].c_str());
}

QTEST_GUILESS_MAIN(TestVscapHostile)
#include "tst_vscap_hostile.moc"
