#include "analysis/replay/BlockLayout.h"

#include <algorithm>
#include <cmath>

namespace vs {

BlockLayout::BlockLayout(const std::vector<StateSegment>& segments, double bytesPerPixel, int width,
                         int gapPixels)
    : segs_(segments), bytesPerPixel_(std::max(bytesPerPixel, 1e-3)), width_(std::max(width, 1)),
      gap_(gapPixels) {
    double at = 0;
    for (const auto& s : segments) {
        starts_.push_back(at);
        at += std::max(1.0, double(s.size) / bytesPerPixel_) + gap_;
    }
    end_ = at;
}

int BlockLayout::rows() const {
    return std::max(1, int(std::ceil(end_ / width_)));
}

double BlockLayout::fitBytesPerPixel(const std::vector<StateSegment>& segments, int width, int rows,
                                     int gapPixels) {
    double bytes = 0;
    for (const auto& s : segments) bytes += double(s.size);
    const double room = double(width) * rows - double(segments.size()) * (gapPixels + 1);
    return bytes > 0 ? bytes / std::max(room, double(width)) : 1.0;
}

BlockLayout::Hit BlockLayout::hitTest(int x, int row) const {
    if (x < 0 || x >= width_ || row < 0) return {};
    const double p = double(row) * width_ + x + 0.5;
    const auto it = std::upper_bound(starts_.begin(), starts_.end(), p);
    if (it == starts_.begin()) return {};
    const auto s = size_t(it - starts_.begin() - 1);
    const double offset = (p - starts_[s]) * bytesPerPixel_;
    if (offset >= double(segs_[s].size) && p - starts_[s] >= 1.0) return {}; // in the gap after it
    const auto& blocks = segs_[s].blocks;
    const uint64_t addr = segs_[s].address + uint64_t(std::min(offset, double(segs_[s].size - 1)));
    const auto b = std::upper_bound(blocks.begin(), blocks.end(), addr,
                                    [](uint64_t a, const StateBlock& blk) { return a < blk.address; });
    return {int(s), b == blocks.begin() ? -1 : int(b - blocks.begin() - 1)};
}

} // namespace vs
