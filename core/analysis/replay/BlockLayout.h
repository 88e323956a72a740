#pragma once
// Places the allocator's segments on a flat "memory strip" for the block map: segments in address
// order, each followed by a small gap, drawn to scale at `bytesPerPixel`, wrapped into rows of
// `width` pixels. Hit-testing maps a pixel back to its segment and block.
#include "analysis/replay/StateTypes.h"

#include <cstdint>
#include <vector>

namespace vs {

class BlockLayout {
  public:
    BlockLayout(const std::vector<StateSegment>& segments, double bytesPerPixel, int width,
                int gapPixels = 4);

    struct Hit {
        int segment = -1, block = -1;
    };
    // The block under pixel (x, row); segment -1 in a gap or past the end.
    Hit hitTest(int x, int row) const;
    // Strip position (in pixels along the strip) where a segment starts.
    double segmentStart(size_t segment) const { return starts_[segment]; }
    double pixelOf(size_t segment, uint64_t offsetBytes) const {
        return starts_[segment] + double(offsetBytes) / bytesPerPixel_;
    }
    int rows() const;
    int width() const { return width_; }
    double bytesPerPixel() const { return bytesPerPixel_; }
    // Fits everything in `rows` rows of `width` pixels.
    static double fitBytesPerPixel(const std::vector<StateSegment>& segments, int width, int rows,
                                   int gapPixels = 4);

  private:
    const std::vector<StateSegment>& segs_;
    double bytesPerPixel_;
    int width_, gap_;
    std::vector<double> starts_; // strip pixel where each segment begins
    double end_ = 0;
};

} // namespace vs
