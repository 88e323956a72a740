// RankHeatmap's ways for thousands of ranks (RankHeatmap.h: Way): the merged pixel rows and the
// slices painted over the pixels they cover.
#include "views/ranks/RankHeatmap.h"

#include "views/ranks/HeatColours.h"

#include <algorithm>
#include <cmath>

namespace vs::ui {

RankHeatmap::Way RankHeatmap::wayFor(int width, int height) const {
    const int64_t n = int64_t(set_->ranks.size());
    if (n * width <= exactWork_) return Way::Exact;
    // merged rows serve while their cells are no wider than a pixel (zoomed out up to about 5x)
    const double cells = (to_ - from_) / (extent() / double(kMergedCells));
    return n > height && cells >= width ? Way::Merged : Way::Scatter;
}

const RankHeatmap::MergedRows& RankHeatmap::mergedRows(int rows) const {
    if (merged_.set == set_.get() && merged_.metric == metric_ && merged_.steps == bySteps_ &&
        merged_.rows == rows)
        return merged_;
    MergedRows m;
    m.set = set_.get(), m.metric = metric_, m.steps = bySteps_, m.rows = rows;
    m.cellWidth = extent() / double(kMergedCells);
    m.cells.assign(size_t(rows), std::vector<int64_t>(kMergedCells, -1));
    const size_t n = set_->ranks.size();
    const int top = int(kMergedCells) - 1;
    const auto cellOf = [&](double x) { return std::clamp(int(std::floor(x / m.cellWidth)), 0, top); };
    for (size_t i = 0; i < n; ++i) {
        const Slices s = slicesOf(set_->ranks[i]);
        if (!s.values) continue;
        // the rank's pixel row, as the exact way assigns it (ranks share rows: there are more ranks)
        int64_t* cell = m.cells[size_t(uint64_t(i) * uint64_t(rows) / n)].data();
        const int slices = int(s.values->size());
        for (int k = 0; k < slices; ++k) {
            // every cell the slice overlaps holds at least its value
            const int64_t v = (*s.values)[size_t(k)];
            const int c1 = cellOf(k + 1 < slices ? s.start(k + 1) : s.last);
            for (int c = cellOf(s.start(k)); c <= c1; ++c) cell[c] = std::max(cell[c], v);
        }
    }
    merged_ = std::move(m);
    return merged_;
}

void RankHeatmap::scatterRow(const Slices& s, const std::vector<double>& edges, const ColourScale& colour,
                             std::vector<int16_t>& row) const {
    if (!s.values) return;
    const int w = int(edges.size()) - 1, slices = int(s.values->size());
    const double from = edges.front(), to = edges.back(), inv = w / (to - from);
    if (to < s.first || from > s.last) return;
    // each slice in view over the pixels whose span it overlaps (at least the pixel it falls in; a
    // slice ending exactly on a pixel edge takes that pixel too). A multiplication and a truncation
    // per edge, no division or floor (a library call without SSE4.1), and runs filled rather than
    // compared: this runs for every slice in view of every rank
    const int64_t* v = s.values->data();
    int16_t* out = row.data();
    int pa = std::clamp(int((s.start(s.sliceAt(from)) - from) * inv), 0, w - 1); // truncation: clamped anyway
    for (int k = s.sliceAt(from), last = s.sliceAt(to); k <= last; ++k) {
        const double b = k + 1 < slices ? s.start(k + 1) : s.last;
        const int pb = std::clamp(int((b - from) * inv), pa, w - 1);
        const int16_t c = colour.index(v[k]);
        out[pa] = std::max(out[pa], c); // shared with the slice before, when it ended inside it
        std::fill(out + pa + 1, out + pb + 1, c);
        pa = pb; // the next slice starts in the pixel where this one ends
    }
}

} // namespace vs::ui
