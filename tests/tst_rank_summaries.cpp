// Rank summaries as files (vramscope-cli summarize, compare/RankSummaryFile.h): every field read back
// as written; `ranks` over a folder of summaries says what it says over the captures (the GPU-recorded
// samples/ranks/ddp4); a summary stands in for its capture, a stale one is warned of, a bad input
// fails alone; and hostile summaries (cut, flipped, generated with hostile counts and values) are
// refused with a sentence or read into a summary the rank statistics can use.
#include "CliChild.h"
#include "HostileRankSummary.h"
#include "compare/RankSet.h"
#include "compare/RankSummaryFile.h"
#include "load/OpenAnalysis.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <functional>
#include <thread>

#include <sys/stat.h>

#include <random>

using namespace vs;

class TestRankSummaries : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void everyFieldReadBack();
    void ranksOnSummariesEqualRanksOnCaptures();
    void summaryStandsInForItsCapture();
    void staleSummaryWarned();
    void sourcePathNeverLookedAt();
    void impossibleValuesRefusedPerFile();
    void duplicateRanksRefused();
    void frameWithoutChecksumRefused();
    void folderEntriesThatCannotBeReadSkipped();
    void setChargedToMaxMemory();
    void longNamesSummarised();
    void badInputFailsAlone();
    void cutAndFlippedFilesRefused();
    void hostileFieldsRefusedOrUsable();
    void threadsBoundedByCoresAndFiles();
    void textShowsNamesNotControls();
    void unnamedRanksNeverOverflow();

  private:
    QTemporaryDir dir_;
    QStringList captures_; // absolute paths of ddp4's rank0..3
};

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run cli(const QStringList& args) {
    const test::CliRun r = test::runCliMeasured(VRAMSCOPE_CLI, args, 120);
    return {r.rc, QByteArray::fromStdString(r.out), QByteArray::fromStdString(r.err)};
}

void compareSummaries(const RankSummary& a, const RankSummary& b) {
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.path, b.path);
    QCOMPARE(a.device, b.device);
    QCOMPARE(a.events, b.events);
    QCOMPARE(std::make_pair(a.firstUs, a.lastUs), std::make_pair(b.firstUs, b.lastUs));
    QCOMPARE(std::make_pair(a.peakAllocated, a.peakReserved),
             std::make_pair(b.peakAllocated, b.peakReserved));
    QCOMPARE(std::make_pair(a.finalAllocated, a.finalReserved),
             std::make_pair(b.finalAllocated, b.finalReserved));
    QCOMPARE(a.growth, b.growth);
    QCOMPARE(a.ooms, b.ooms);
    QCOMPARE(a.marker, b.marker);
    QCOMPARE(a.iterations, b.iterations);
    QCOMPARE(a.stepsPerSlot, b.stepsPerSlot);
    QVERIFY(a.stepUs == b.stepUs && a.stepPeak == b.stepPeak && a.stepPeakReserved == b.stepPeakReserved);
    QVERIFY(a.binAllocated == b.binAllocated && a.binReserved == b.binReserved);
}

// What a summary that reads must hold for the heatmap and the statistics (RankSummary.h).
bool usable(const RankSummary& r) {
    const size_t steps = r.stepUs.size();
    return r.firstUs <= r.lastUs && r.stepsPerSlot > 0 && (r.stepsPerSlot & (r.stepsPerSlot - 1)) == 0 &&
           r.stepPeak.size() == steps && r.stepPeakReserved.size() == steps &&
           steps == (r.iterations + r.stepsPerSlot - 1) / r.stepsPerSlot &&
           r.binReserved.size() == r.binAllocated.size() &&
           (r.binAllocated.empty() ? r.events == 0 : r.binAllocated.size() == RankSummary::kBins);
}

std::span<const uint8_t> bytesOf(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Why the reader refuses `file`, or "" when it reads it.
std::string refusal(const std::string& file) {
    try {
        decodeRankSummary(bytesOf(file));
        return "";
    } catch (const RankSummaryError& e) {
        return e.what();
    }
}

// The file with its payload framed again, with or without the checksum the format requires; a file
// whose frame does not decompress is returned as it is.
std::string reframed(const std::string& file, bool checksum) {
    constexpr size_t kHeader = 16;
    if (file.size() < kHeader) return file;
    const std::string frame = file.substr(kHeader);
    const unsigned long long n = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (n > RankSummaryFile::kMaxPayload) return file; // also the error and unknown sizes
    std::string payload(size_t(n), '\0');
    if (ZSTD_isError(ZSTD_decompress(payload.data(), payload.size(), frame.data(), frame.size())))
        return file;
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum ? 1 : 0);
    std::string z(ZSTD_compressBound(payload.size()), '\0');
    const size_t m = ZSTD_compress2(c, z.data(), z.size(), payload.data(), payload.size());
    ZSTD_freeCCtx(c);
    return file.substr(0, kHeader) + z.substr(0, m);
}

void writeFile(const QString& path, const std::string& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes.data(), qint64(bytes.size())), qint64(bytes.size()));
}

QJsonObject rowOfRank(const QJsonObject& ranks, int rank) {
    for (const auto& row : ranks["ranks"].toArray())
        if (row.toObject()["rank"].toInt() == rank) return row.toObject();
    return {};
}

} // namespace

void TestRankSummaries::initTestCase() {
    // the recorded ranks (samples/ranks/README.md): rank 2 keeps each step's output
    for (int r = 0; r < 4; ++r) {
        const QString to = dir_.filePath(QString("caps/rank%1.pickle").arg(r));
        QDir().mkpath(dir_.filePath("caps"));
        QProcess xz;
        xz.setStandardOutputFile(to);
        xz.start("xz", {"-dc", QString(VRAMSCOPE_SAMPLES_DIR "/../ranks/ddp4/rank%1.pickle.xz").arg(r)});
        QVERIFY(xz.waitForFinished(60000) && xz.exitCode() == 0);
        captures_ << QFileInfo(to).absoluteFilePath();
    }
}

void TestRankSummaries::everyFieldReadBack() {
    RankSummary real = summariseRank(*openAnalysis(captures_[2].toStdString()));
    QVERIFY(real.iterations > 0 && real.binAllocated.size() == RankSummary::kBins);
    // and one that keeps a slot per 4 iterations, with no rank in its name and negative figures
    RankSummary odd = real;
    odd.rank = -1, odd.stepsPerSlot = 4, odd.iterations = 4 * real.stepUs.size() - 3,
    odd.growth = -(int64_t(1) << 40);
    odd.marker = "ProfilerStep#\xc3\xa9", odd.ooms = 3, odd.device = 7, odd.firstUs = -5;
    for (const RankSummary* s : {&real, &odd}) {
        const auto source = SourceStamp::of(captures_[2].toStdString());
        QVERIFY(source);
        const std::string file = encodeRankSummary(*s, *source);
        QVERIFY2(file.size() < 8192, std::to_string(file.size()).c_str()); // a few KB at most
        const RankSummaryFile back = decodeRankSummary(bytesOf(file));
        QCOMPARE(back.source.path, source->path);
        QVERIFY(back.source.sameFileState(*source));
        QCOMPARE(back.minor, RankSummaryFile::kMinor);
        RankSummary expected = *s;
        expected.path = source->path; // a summary's path is its source's
        compareSummaries(back.summary, expected);
    }
}

// `ranks DIR --threads 60000` over 20,000 summaries aborted (SIGABRT) when the system refused the
// threads: the workers are bounded by a few per core and by the files (issue 47).
void TestRankSummaries::threadsBoundedByCoresAndFiles() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    QCOMPARE(rankWorkers(60000, 20000), 4 * cores);
    QCOMPARE(rankWorkers(0, 20000), cores);
    QCOMPARE(rankWorkers(3, 20000), std::min(3u, 4 * cores));
    QCOMPARE(rankWorkers(60000, 2), 2u);
    QCOMPARE(rankWorkers(0, 0), 1u);
    // and the command runs with it
    const Run r = cli(QStringList{"ranks", "--threads", "60000", "--json"} + captures_);
    QCOMPARE(r.code, 0);
    QCOMPARE(QJsonDocument::fromJson(r.out).object()["ranks"].toArray().size(), 4);
}

// A file named with a newline and an escape sequence forged a line of `ranks` and reached the
// terminal (issue 47): names and messages are printed with their control characters as \xNN.
void TestRankSummaries::textShowsNamesNotControls() {
    const QString evil = dir_.filePath(QString::fromUtf8("rank9\n\x1b[31mforged.pickle"));
    QVERIFY(QFile::copy(captures_[0], evil));
    const Run r = cli({"ranks", evil, captures_[1]});
    QCOMPARE(r.code, 0);
    QVERIFY2(!r.out.contains('\x1b'), r.out.constData());
    QVERIFY2(r.out.contains("rank9\\x0a\\x1b[31mforged.pickle"), r.out.constData());
    for (const QByteArray& line : r.out.split('\n')) // every line is a header, a rank or a verdict
        QVERIFY2(line.isEmpty() || line.startsWith(' ') || line.startsWith("Median") ||
                     line.startsWith("No rank") || line.startsWith("Outlier") || line.startsWith("Warning"),
                 line.constData());
    QFile::remove(evil);
}

// A file without a rank beside a summary of rank 2^31 - 1 was numbered 2^31 (signed overflow, UBSan;
// issue 47): it keeps an error instead; below that it is numbered after the highest, in order.
void TestRankSummaries::unnamedRanksNeverOverflow() {
    std::vector<RankSummary> ranks(3);
    ranks[0].rank = 4, ranks[1].rank = -1, ranks[2].rank = -1;
    numberUnnamedRanks(ranks);
    QCOMPARE(ranks[1].rank, 5);
    QCOMPARE(ranks[2].rank, 6);
    std::vector<RankSummary> top(2);
    top[0].rank = INT32_MAX, top[1].rank = -1;
    numberUnnamedRanks(top);
    QCOMPARE(top[0].rank, INT32_MAX);
    QVERIFY(!top[1].ok());
    QVERIFY2(top[1].error.find("none is left after rank 2147483647") != std::string::npos,
             top[1].error.c_str());
    RankSet set;
    set.ranks = top;
    finishRankSet(set); // and the set is still usable: the readable one alone in the statistics
    QCOMPARE(set.readable(), size_t(1));
}

void TestRankSummaries::ranksOnSummariesEqualRanksOnCaptures() {
    const QString out = dir_.filePath("sums");
    const Run s = cli(QStringList{"summarize"} + captures_ + QStringList{"-o", out});
    QCOMPARE(s.code, 0);
    QCOMPARE(s.out.trimmed().split('\n').size(), 4); // one summary per capture, its path on a line
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden).size(), 4); // no temporary left behind
    const Run onCaptures = cli(QStringList{"ranks", "--json"} + captures_);
    const Run onSummaries = cli({"ranks", "--json", out});
    QCOMPARE(onCaptures.code, 0);
    QCOMPARE(onSummaries.code, 0);
    QCOMPARE(onSummaries.out, onCaptures.out); // every rank, figure, outlier and sentence
    const QJsonObject d = QJsonDocument::fromJson(onSummaries.out).object();
    QCOMPARE(d["outliers"].toArray().size(), 1);
    QCOMPARE(d["outliers"].toArray()[0].toObject()["rank"].toInt(), 2);
    QCOMPARE(d["ranks"].toArray()[2].toObject()["file"].toString(), captures_[2]); // the source named
}

void TestRankSummaries::summaryStandsInForItsCapture() {
    // captures and their summaries in one folder: four ranks, each read once (from its summary)
    const QString mixed = dir_.filePath("mixed");
    QVERIFY(QDir().mkpath(mixed));
    for (int r = 0; r < 4; ++r) QVERIFY(QFile::copy(captures_[r], mixed + QString("/rank%1.pickle").arg(r)));
    QCOMPARE(cli({"summarize", mixed + "/rank1.pickle", mixed + "/rank2.pickle", "-o", mixed}).code, 0);
    RankSet set = loadRanks(rankFiles(mixed.toStdString()).files);
    QCOMPARE(set.ranks.size(), size_t(4));
    QVERIFY(set.warnings.empty());
    for (int r = 0; r < 4; ++r)
        QCOMPARE(set.ranks[size_t(r)].path, (mixed + QString("/rank%1.pickle").arg(r)).toStdString());
    // the summary is what was read: rank 2's capture, cut to nothing, is not opened
    QVERIFY(QFile::resize(mixed + "/rank3.pickle", 0) && QFile::remove(mixed + "/rank3.pickle"));
    QFile cut(mixed + "/rank2.pickle");
    QVERIFY(cut.open(QIODevice::ReadWrite));
    const QByteArray keep = cut.readAll();
    cut.resize(0), cut.close();
    set = loadRanks(rankFiles(mixed.toStdString()).files);
    QCOMPARE(set.ranks.size(), size_t(3));
    QVERIFY(set.ranks[2].ok());
    QCOMPARE(set.ranks[2].rank, 2);
    QCOMPARE(set.outliers.size(), size_t(1));
    QVERIFY(!set.warnings.empty()); // its capture changed since: stale, said
    // an unreadable summary gives way to its capture, with a warning
    QVERIFY(cut.open(QIODevice::WriteOnly) && cut.write(keep) == keep.size());
    cut.close();
    QFile bad(mixed + "/rank1.pickle.vsrank");
    QVERIFY(bad.open(QIODevice::ReadWrite) && bad.resize(40));
    bad.close();
    set = loadRanks(rankFiles(mixed.toStdString()).files);
    QCOMPARE(set.ranks.size(), size_t(3));
    QVERIFY(set.ranks[1].ok());
    QCOMPARE(set.ranks[1].path, (mixed + "/rank1.pickle").toStdString());
    const auto said = std::find_if(set.warnings.begin(), set.warnings.end(), [](const std::string& w) {
        return w.find("rank1.pickle.vsrank is not a readable rank summary") == 0;
    });
    QVERIFY(said != set.warnings.end());
    QVERIFY2(said->find("rank1.pickle was read instead") != std::string::npos, said->c_str());
}

void TestRankSummaries::staleSummaryWarned() {
    const QString folder = dir_.filePath("stale");
    QVERIFY(QDir().mkpath(folder));
    const QString capture = folder + "/rank0.pickle";
    QVERIFY(QFile::copy(captures_[0], capture));
    QCOMPARE(cli({"summarize", capture, "-o", folder + "/s"}).code, 0);
    QCOMPARE(cli({"ranks", folder + "/s", capture}).out.contains("Warning"), false); // given along, unchanged
    QFile f(capture);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-3600), QFileDevice::FileModificationTime));
    f.close();
    const Run r = cli({"ranks", folder + "/s", capture, "--json"});
    QCOMPARE(r.code, 0);
    const QJsonArray w = QJsonDocument::fromJson(r.out).object()["warnings"].toArray();
    QCOMPARE(w.size(), 1);
    QVERIFY2(w[0].toString().startsWith("rank0.pickle.vsrank is stale: " + capture),
             qPrintable(w[0].toString()));
}

// A summary's source path names a file of the machine that summarised it: it was stat()ed on the
// reading machine and its size printed in a warning (issue 47). Alone, the summary is read with no
// look at the path it names, whatever is there now.
void TestRankSummaries::sourcePathNeverLookedAt() {
    const QString folder = dir_.filePath("named");
    QVERIFY(QDir().mkpath(folder));
    const QString capture = folder + "/rank0.pickle";
    QVERIFY(QFile::copy(captures_[0], capture));
    QCOMPARE(cli({"summarize", capture, "-o", folder + "/s"}).code, 0);
    QFile f(capture); // the path it names now holds another file, of another size
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write("12345") == 5);
    f.close();
    const Run r = cli({"ranks", folder + "/s", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject d = QJsonDocument::fromJson(r.out).object();
    QVERIFY2(d["warnings"].toArray().isEmpty(), r.out.constData()); // was: "... (... then, 5 B now)"
    QVERIFY(!r.out.contains("5 B"));
    QCOMPARE(d["ranks"].toArray()[0].toObject()["file"].toString(), capture); // named, not opened
}

void TestRankSummaries::badInputFailsAlone() {
    const QString out = dir_.filePath("bad-out");
    const QString junk = dir_.filePath("junk.pickle");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("not a pickle") > 0);
    f.close();
    const Run r = cli({"summarize", junk, captures_[1], dir_.filePath("missing.pickle"), "-o", out});
    QCOMPARE(r.code, 2);
    const QList<QByteArray> lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 3); // one per bad file, then how many failed
    QVERIFY2(lines[0].startsWith("vramscope-cli: error: " + junk.toUtf8()), lines[0].constData());
    QCOMPARE(lines[2], QByteArray("vramscope-cli: error: 2 of 3 files could not be summarised"));
    QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), QStringList{"rank1.pickle.vsrank"});
    QCOMPARE(cli({"summarize", captures_[1]}).code, 2); // no -o
    // two captures of one name: the second would overwrite the first's summary, and is refused
    const QString twin = dir_.filePath("twin");
    QVERIFY(QDir().mkpath(twin) && QFile::copy(captures_[2], twin + "/rank1.pickle"));
    const Run same = cli({"summarize", captures_[1], twin + "/rank1.pickle", "-o", out});
    QCOMPARE(same.code, 2);
    QVERIFY2(same.err.contains("has the file name of " + captures_[1].toUtf8()), same.err.constData());
    QCOMPARE(readRankSummaryFile((out + "/rank1.pickle.vsrank").toStdString()).source.path,
             captures_[1].toStdString());
}

void TestRankSummaries::cutAndFlippedFilesRefused() {
    const auto source = SourceStamp::of(captures_[0].toStdString());
    const std::string file =
        encodeRankSummary(summariseRank(*openAnalysis(captures_[0].toStdString())), *source);
    for (size_t n = 0; n < file.size(); ++n) // every cut
        QVERIFY2(!refusal(file.substr(0, n)).empty(),
                 qPrintable(QString("cut to %1 of %2 bytes, read").arg(n).arg(file.size())));
    const RankSummary whole = decodeRankSummary(bytesOf(file)).summary;
    for (size_t at = 0; at < file.size(); ++at) { // every byte flipped: refused, or read as it was
        std::string flipped = file;               // (the minor version; bits zstd's frame ignores)
        flipped[at] = char(flipped[at] ^ 0x10);
        try {
            compareSummaries(decodeRankSummary(bytesOf(flipped)).summary, whole);
        } catch (const RankSummaryError&) {
        }
    }
    std::string newer = file;
    newer[8] = 2;
    const std::string why = refusal(newer);
    QVERIFY2(why.find("format version 2 (this build reads version 1") != std::string::npos, why.c_str());
}

void TestRankSummaries::hostileFieldsRefusedOrUsable() {
    std::mt19937_64 rng(7);
    size_t read = 0, refused = 0;
    for (int n = 0; n < 3000; ++n) {
        std::vector<uint8_t> recipe(16 + rng() % 200);
        for (auto& b : recipe) b = uint8_t(rng());
        fuzz::FuzzBytes in(recipe.data(), recipe.size());
        const std::string file = fuzz::HostileRankSummary(in).build();
        try {
            const RankSummaryFile f = decodeRankSummary(bytesOf(file));
            QVERIFY(usable(f.summary));
            RankSet set;
            set.ranks = {f.summary, f.summary};
            set.ranks[1].rank = 9;
            finishRankSet(set);
            QVERIFY(set.firstUs <= set.lastUs);
            ++read;
        } catch (const RankSummaryError& e) {
            QVERIFY(std::string(e.what()).rfind("not a readable rank summary: ", 0) == 0);
            ++refused;
        }
    }
    // both ways taken often: the generator reaches past the frame into the fields' checks
    QVERIFY2(read > 100 && refused > 1000, qPrintable(QString("%1 read, %2 refused").arg(read).arg(refused)));
}

// Summaries no capture can give are refused each with its reason, the others still ranked, and the
// statistics are the readable ones' own (issue 47: they were read, and moved the median): a negative
// peak, a negative final, step times that go back, more iterations than events, a final above the
// peak.
void TestRankSummaries::impossibleValuesRefusedPerFile() {
    const QString folder = dir_.filePath("impossible");
    QVERIFY(QDir().mkpath(folder));
    QCOMPARE(cli(QStringList{"summarize"} + captures_ + QStringList{"-o", folder}).code, 0);
    const Run real = cli({"ranks", "--json", folder});
    QCOMPARE(real.code, 0);
    const RankSummaryFile base = readRankSummaryFile((folder + "/rank0.pickle.vsrank").toStdString());
    const auto plant = [&](int rank, const std::function<void(RankSummary&)>& spoil) {
        RankSummary s = base.summary;
        s.rank = rank, s.peakAllocated *= 4, s.stepPeak.assign(s.stepPeak.size(), s.peakAllocated);
        spoil(s);
        SourceStamp src = base.source;
        src.path = "/cluster/rank" + std::to_string(rank) + ".pickle";
        writeFile(folder + QString("/rank%1.pickle.vsrank").arg(rank), encodeRankSummary(s, src));
    };
    plant(7, [](RankSummary& s) { s.peakAllocated = -(int64_t(1) << 40); });
    plant(8, [](RankSummary& s) { s.finalReserved = -1; });
    plant(9, [](RankSummary& s) { std::swap(s.stepUs[0], s.stepUs[1]); });
    plant(10, [](RankSummary& s) { s.events = s.iterations - 1; });
    plant(11, [](RankSummary& s) { s.finalAllocated = s.peakAllocated + 1; });
    plant(12, [](RankSummary& s) { s.finalReserved = s.peakReserved + 512; });
    const Run r = cli({"ranks", "--json", folder});
    QCOMPARE(r.code, 0);
    const QJsonObject d = QJsonDocument::fromJson(r.out).object(),
                      before = QJsonDocument::fromJson(real.out).object();
    const std::pair<int, const char*> reasons[] = {{7, "the peak allocated out of range (-1099511627776)"},
                                                   {8, "the final reserved out of range (-1)"},
                                                   {9, "the step times go back"},
                                                   {10, "the iteration count out of range"},
                                                   {11, "the final allocated ("},
                                                   {12, "the final reserved ("}};
    for (const auto& [rank, why] : reasons) {
        const QString error = rowOfRank(d, rank)["error"].toString();
        QVERIFY2(error.startsWith(
                     QString("rank%1.pickle.vsrank is not a readable rank summary: %2").arg(rank).arg(why)),
                 qPrintable(error));
    }
    for (int rank = 0; rank < 4; ++rank) QVERIFY(!rowOfRank(d, rank).contains("error"));
    for (const char* key : {"median_peak_allocated", "median_growth", "outliers"})
        QCOMPARE(d[key], before[key]);
}

// Two files that name one rank: which one is that rank cannot be told, so neither is used; each
// row says why (issue 47: both were read, the rank counted twice).
void TestRankSummaries::duplicateRanksRefused() {
    const QString folder = dir_.filePath("twice");
    QVERIFY(QDir().mkpath(folder));
    QCOMPARE(cli(QStringList{"summarize"} + captures_ + QStringList{"-o", folder}).code, 0);
    QVERIFY(QFile::copy(folder + "/rank1.pickle.vsrank", folder + "/copy_of_one.vsrank"));
    const Run r = cli({"ranks", "--json", folder});
    QCOMPARE(r.code, 0);
    int readable = 0, refused = 0;
    for (const auto& row : QJsonDocument::fromJson(r.out).object()["ranks"].toArray()) {
        const QString error = row.toObject()["error"].toString();
        if (error.isEmpty()) {
            ++readable;
            continue;
        }
        ++refused;
        QCOMPARE(row.toObject()["rank"].toInt(), 1);
        QVERIFY2(error.startsWith("rank 1 is named by 2 files (also ") &&
                     error.endsWith("): none of them is used"),
                 qPrintable(error));
    }
    QCOMPARE(readable, 3);
    QCOMPARE(refused, 2);
}

// The format requires one zstd frame with its checksum (docs/ranks.md): a frame without one (a
// corrupt byte would read as a value), bytes after it and a second frame are refused.
void TestRankSummaries::frameWithoutChecksumRefused() {
    const auto source = SourceStamp::of(captures_[0].toStdString());
    const std::string file =
        encodeRankSummary(summariseRank(*openAnalysis(captures_[0].toStdString())), *source);
    QVERIFY(refusal(reframed(file, true)).empty()); // the same payload framed again reads
    std::string why = refusal(reframed(file, false));
    QVERIFY2(why == "not a readable rank summary: the compressed payload has no checksum", why.c_str());
    for (const std::string& extra : {std::string("x"), file.substr(16)}) {
        why = refusal(file + extra);
        QVERIFY2(why.find("bytes after the compressed payload") != std::string::npos, why.c_str());
    }
}

// A symlink loop, a link to nothing and a FIFO named like ranks' files in a shared folder: each is
// skipped with a warning and the others are read (issue 47: one looping link failed `ranks FOLDER`).
void TestRankSummaries::folderEntriesThatCannotBeReadSkipped() {
    const QString folder = dir_.filePath("shared");
    QVERIFY(QDir().mkpath(folder));
    for (int r = 0; r < 2; ++r) QVERIFY(QFile::copy(captures_[r], folder + QString("/rank%1.pickle").arg(r)));
    QVERIFY(QFile::link("loop2.pickle", folder + "/loop1.pickle") &&
            QFile::link("loop1.pickle", folder + "/loop2.pickle"));
    QVERIFY(QFile::link("nowhere", folder + "/rank5.pickle"));
    QCOMPARE(::mkfifo((folder + "/rank6.pickle").toLocal8Bit().constData(), 0600), 0);
    const QStringList said = {"loop1.pickle skipped: Too many levels of symbolic links",
                              "loop2.pickle skipped: Too many levels of symbolic links",
                              "rank5.pickle skipped: a link to nothing",
                              "rank6.pickle skipped: not a regular file"};
    const Run s = cli({"summarize", folder, "-o", folder + "/s"});
    QCOMPARE(s.code, 0);
    QCOMPARE(s.out.trimmed().split('\n').size(), 2);
    for (const QString& w : said)
        QVERIFY2(s.err.contains("vramscope-cli: warning: " + w.toUtf8()), s.err.constData());
    QVERIFY(QFile::link("../loop1.pickle", folder + "/s/loop.vsrank"));
    const QString onlyLoops = dir_.filePath("only-loops");
    QVERIFY(QDir().mkpath(onlyLoops) && QFile::link("b.pickle", onlyLoops + "/a.pickle") &&
            QFile::link("a.pickle", onlyLoops + "/b.pickle"));
    const Run none = cli({"ranks", onlyLoops}); // nothing to read: the error says what was skipped
    QCOMPARE(none.code, 2);
    QVERIFY2(none.err.contains("that can be read (a.pickle skipped: Too many levels of symbolic links)"),
             none.err.constData());
    for (const QString& f : {folder, folder + "/s"}) {
        const Run r = cli({"ranks", "--json", f});
        QCOMPARE(r.code, 0);
        const QJsonObject d = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(d["ranks"].toArray().size(), 2);
        QString warnings;
        for (const auto& w : d["warnings"].toArray()) warnings += w.toString() + "\n";
        QVERIFY2(f == folder ? warnings == said.join('\n') + "\n"
                             : warnings == "loop.vsrank skipped: Too many levels of symbolic links\n",
                 qPrintable(warnings));
    }
}

// Many small files that each expand to the most a summary may hold: the set is charged to
// --max-memory and refused in one line when over (issue 47: 20,000 took 6.4 GB under
// --max-memory 512M); a summary holds its series and strings of at most 4 KiB each.
void TestRankSummaries::setChargedToMaxMemory() {
    const QString folder = dir_.filePath("inflated");
    QVERIFY(QDir().mkpath(folder));
    RankSummary r =
        decodeRankSummary(bytesOf(encodeRankSummary(summariseRank(*openAnalysis(captures_[0].toStdString())),
                                                    *SourceStamp::of(captures_[0].toStdString()))))
            .summary;
    r.events = 1 << 20, r.iterations = RankSummary::kMaxSlots, r.stepsPerSlot = 1;
    r.stepUs.assign(r.iterations, r.firstUs), r.stepPeak.assign(r.iterations, 1 << 20);
    r.stepPeakReserved = r.stepPeak, r.marker.assign(64 << 10, 'm');
    size_t bytes = 0;
    for (int k = 0; k < 40; ++k) {
        r.rank = k;
        const SourceStamp src{"/cluster/" + std::string(4000, 'p') + "/rank" + std::to_string(k), 1, 0};
        const std::string file = encodeRankSummary(r, src);
        bytes += file.size();
        writeFile(folder + QString("/rank%1.pickle.vsrank").arg(k), file);
    }
    QVERIFY2(bytes < 40 * 400, qPrintable(QString::number(bytes))); // a few hundred bytes each
    const RankSummary back = readRankSummaryFile((folder + "/rank0.pickle.vsrank").toStdString()).summary;
    QCOMPARE(back.marker.size(), size_t(4096)); // cut where it was written
    QVERIFY2(back.heldBytes() < 140 << 10, qPrintable(QString::number(back.heldBytes())));
    const Run over = cli({"ranks", folder, "--max-memory", "2M"});
    QCOMPARE(over.code, 2);
    QCOMPARE(over.err.count('\n'), 1);
    QVERIFY2(over.err.startsWith("vramscope-cli: error: reading 40 ranks: their summaries (the first ") &&
                 over.err.contains("would need more than 2 MiB of memory; raise --max-memory"),
             over.err.constData());
    QVERIFY(over.out.isEmpty());
    QCOMPARE(cli({"ranks", folder, "--max-memory", "64M"}).code, 0);
}

// Capture names of 233 bytes and more: the summary's temporary name passed 255 bytes and every such
// capture failed (issue 47). Up to 248 bytes the summary is NAME.vsrank; past that its name is cut
// and ends with a hash of the whole (a name of 255 bytes has no room for the suffix).
void TestRankSummaries::longNamesSummarised() {
    const QString folder = dir_.filePath("long");
    QVERIFY(QDir().mkpath(folder));
    QStringList files;
    for (int length : {233, 248, 255}) {
        const QString rank = QString("rank%1_").arg(files.size());
        const QString name = rank + QString(length - rank.size() - 7, 'x') + ".pickle";
        QCOMPARE(name.size(), length);
        files << folder + "/" + name;
        QVERIFY(QFile::copy(captures_[files.size() - 1], files.last()));
    }
    const Run s = cli(QStringList{"summarize"} + files + QStringList{"-o", folder + "/s"});
    QVERIFY2(s.code == 0, s.err.constData());
    const QStringList made = QDir(folder + "/s").entryList(QDir::Files | QDir::Hidden);
    QCOMPARE(made.size(), 3);
    for (const QString& name : made) QVERIFY(name.toUtf8().size() <= 255 && name.endsWith(".vsrank"));
    QCOMPARE(QString::fromUtf8(s.out).split('\n')[2],
             folder + "/s/" + QString::fromStdString(rankSummaryName(files[2].toStdString())));
    const Run again = cli(QStringList{"summarize"} + files + QStringList{"-o", folder + "/s"});
    QCOMPARE(again.code, 0);
    QCOMPARE(QDir(folder + "/s").entryList(QDir::Files | QDir::Hidden), made); // replaced, none added
    const Run r = cli({"ranks", "--json", folder + "/s"});
    QCOMPARE(r.code, 0);
    const QJsonArray rows = QJsonDocument::fromJson(r.out).object()["ranks"].toArray();
    QCOMPARE(rows.size(), 3);
    for (int k = 0; k < 3; ++k) QCOMPARE(rows[k].toObject()["file"].toString(), files[k]);
}

QTEST_GUILESS_MAIN(TestRankSummaries)
#include "tst_rank_summaries.moc"
