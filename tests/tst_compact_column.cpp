// CompactColumn against a plain vector of the same values: chunks of every width (constant, 1 to 8
// bytes per offset, values near the limits of int64 and uint64), the unsealed tail, range queries
// that start and end inside chunks, and a live snapshot catching up from a longer one.
#include "util/CompactColumn.h"

#include <QtTest>

#include <algorithm>
#include <limits>
#include <random>

using namespace vs;

class TestCompactColumn : public QObject {
    Q_OBJECT
  private slots:
    void equalsTheValues();
    void rangesAndFirstExtremes();
    void catchingUpSharesSealedChunks();
    void smallerThanPlainValues();
    void unsignedColumnsEveryWidth();
    void copiesAndMovesGrowApart();
};

namespace {

constexpr size_t kChunk = CompactSeries::kChunk;

// Stretches of each kind, in chunk-sized pieces and across chunk edges.
std::vector<int64_t> mixedValues() {
    std::mt19937_64 rng(7);
    std::vector<int64_t> v;
    auto add = [&](size_t n, auto f) {
        for (size_t i = 0; i < n; ++i) v.push_back(f(i));
    };
    add(kChunk, [](size_t) { return int64_t(42); });                                        // constant
    add(kChunk + 100, [&](size_t) { return int64_t(rng() % (3ull << 30)) + (5ll << 30); }); // narrow
    add(kChunk / 2, [&](size_t i) { return int64_t(i & 1 ? rng() : -rng() / 2); });         // wide
    add(kChunk, [](size_t i) {
        return i & 1 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    });
    add(kChunk, [](size_t i) { return int64_t(i / 100) - 20; }); // narrow, negative minimum
    add(3 * kChunk + 17, [&](size_t i) { return int64_t(i * 512) - int64_t(rng() % 1000); });
    for (int bytes = 1; bytes <= 7; ++bytes) // offsets of every width, on a negative base
        add(kChunk, [&](size_t i) {
            return -(int64_t(1) << 40) + int64_t(rng() >> (64 - 8 * bytes)) * int64_t(i & 1);
        });
    add(kChunk - 1, [](size_t) { return int64_t(-1); }); // the tail
    return v;
}

} // namespace

void TestCompactColumn::equalsTheValues() {
    const auto v = mixedValues();
    const CompactSeries s(v);
    QCOMPARE(s.size(), v.size());
    for (size_t i = 0; i < v.size(); ++i) QCOMPARE(s[i], v[i]);
    QCOMPARE(s.back(), v.back());
    std::vector<int64_t> decoded;
    s.forEachSpan(3, v.size() - 5, [&](size_t first, std::span<const int64_t> part) {
        QCOMPARE(first, decoded.size() + 3);
        decoded.insert(decoded.end(), part.begin(), part.end());
    });
    QVERIFY(std::equal(decoded.begin(), decoded.end(), v.begin() + 3, v.end() - 5));
    QVERIFY(std::equal(s.begin(), s.end(), v.begin(), v.end()));
    CompactSeries again(v);
    QVERIFY(again == s);
    again.push_back(1);
    QVERIFY(!(again == s));
    again.clear();
    QVERIFY(again.empty());
}

void TestCompactColumn::rangesAndFirstExtremes() {
    const auto v = mixedValues();
    const CompactSeries s(v);
    std::mt19937 rng(11);
    std::vector<std::pair<size_t, size_t>> ranges{
        {0, v.size()}, {0, 1}, {kChunk, 2 * kChunk}, {kChunk - 1, kChunk + 1}};
    for (int k = 0; k < 400; ++k) {
        const size_t a = rng() % v.size(), b = rng() % v.size();
        ranges.emplace_back(std::min(a, b), std::max(a, b) + 1);
    }
    for (const auto& [from, to] : ranges) {
        const auto first = v.begin() + std::ptrdiff_t(from), last = v.begin() + std::ptrdiff_t(to);
        const auto r = s.range(from, to);
        QCOMPARE(r.min, *std::min_element(first, last));
        QCOMPARE(r.max, *std::max_element(first, last));
        QCOMPARE(s.argMax(from, to), size_t(std::max_element(first, last) - v.begin()));
        QCOMPARE(s.argMin(from, to), size_t(std::min_element(first, last) - v.begin()));
    }
    QCOMPARE(s.max(), *std::max_element(v.begin(), v.end()));
}

// Two snapshots of a live session: the older one takes the newer one's values past its own, and
// both keep equalling the values while each goes on appending.
void TestCompactColumn::catchingUpSharesSealedChunks() {
    const auto v = mixedValues();
    CompactSeries older, newer;
    size_t n = 0;
    for (size_t step : {size_t(10), kChunk, 3 * kChunk + 5, v.size()}) {
        for (; n < step; ++n) newer.push_back(v[n]);
        older.appendTail(newer);
        QVERIFY(older == newer);
        std::swap(older, newer); // the next refresh appends to the other one
    }
    QCOMPARE(newer.size(), v.size());
    for (size_t i = 0; i < v.size(); ++i) QCOMPARE(newer[i], v[i]);
}

// What the replay's series are for: byte counts that move by less than 4 GiB per 4096 events take
// about 4 bytes each; a constant stretch almost nothing.
void TestCompactColumn::smallerThanPlainValues() {
    CompactSeries allocated, reserved;
    std::mt19937_64 rng(3);
    int64_t bytes = 1ll << 32;
    for (size_t i = 0; i < 100 * kChunk; ++i) {
        bytes += int64_t(rng() % (1 << 20)) - (1 << 19);
        allocated.push_back(bytes), reserved.push_back(int64_t(20) << 30);
    }
    QVERIFY2(allocated.heapBytes() < allocated.size() * 9 / 2,
             qPrintable(QString::number(allocated.heapBytes())));
    QVERIFY2(reserved.heapBytes() < reserved.size() / 8, qPrintable(QString::number(reserved.heapBytes())));
}

// Addresses and sizes: unsigned, where the order above 2^63 differs from int64's.
void TestCompactColumn::unsignedColumnsEveryWidth() {
    std::mt19937_64 rng(5);
    std::vector<uint64_t> v;
    for (int bytes = 0; bytes <= 8; ++bytes)
        for (size_t i = 0; i < kChunk + 7; ++i) {
            const uint64_t spread = bytes ? rng() >> (64 - 8 * bytes) : 0;
            v.push_back(bytes == 8 ? rng() : UINT64_MAX - (uint64_t(1) << 60) + spread);
        }
    v.push_back(UINT64_MAX), v.push_back(0);
    const CompactColumn<uint64_t> s(v);
    QCOMPARE(s.size(), v.size());
    for (size_t i = 0; i < v.size(); ++i) QCOMPARE(s[i], v[i]);
    for (size_t from = 0; from < v.size(); from += kChunk / 3) {
        const size_t to = std::min(v.size(), from + kChunk * 2);
        const auto first = v.begin() + std::ptrdiff_t(from), last = v.begin() + std::ptrdiff_t(to);
        QCOMPARE(s.range(from, to).max, *std::max_element(first, last));
        QCOMPARE(s.argMin(from, to), size_t(std::min_element(first, last) - v.begin()));
    }
    QCOMPARE(size_t(std::lower_bound(s.begin(), s.end(), v[kChunk]) - s.begin()),
             size_t(std::lower_bound(v.begin(), v.end(), v[kChunk]) - v.begin()));
}

// A copy (a live snapshot's columns copied, then both appended to) seals into room of its own: the
// two never overwrite each other's chunks. A moved-from column is empty and can be filled again.
void TestCompactColumn::copiesAndMovesGrowApart() {
    CompactSeries a;
    for (size_t i = 0; i < kChunk + 10; ++i) a.push_back(int64_t(i));
    CompactSeries b = a, c;
    c = a;
    for (size_t i = 0; i < 3 * kChunk; ++i)
        a.push_back(1), b.push_back(int64_t(i) << 20), c.push_back(-int64_t(i));
    for (size_t i = kChunk + 10; i < a.size(); ++i) {
        const auto k = int64_t(i - kChunk - 10);
        QCOMPARE(a[i], int64_t(1));
        QCOMPARE(b[i], k << 20);
        QCOMPARE(c[i], -k);
    }
    CompactSeries d = std::move(b);
    QVERIFY(b.empty());
    for (size_t i = 0; i < 2 * kChunk; ++i) b.push_back(7), d.push_back(8);
    QCOMPARE(b.size(), 2 * kChunk);
    QCOMPARE(b.range(0, b.size()).max, int64_t(7));
    QCOMPARE(d.back(), int64_t(8));
    QCOMPARE(d[kChunk + 12], int64_t(2) << 20);
}

QTEST_GUILESS_MAIN(TestCompactColumn)
#include "tst_compact_column.moc"
