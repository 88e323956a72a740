#pragma once
// The rank heatmap's colours: viridis from dark blue (little) to yellow (the most any rank holds),
// and the scale from values to 256 of its colours. A value's colour index (0..255, -1 for none) is
// monotonic in the value, so the highest of several values and the highest of their indices give
// one colour: the heatmap's fast way keeps indices (16 bits, vectorised) instead of values.
#include <QColor>

#include <algorithm>
#include <array>
#include <cstdint>

namespace vs::ui {

// viridis at five stops
inline QRgb heat(double f) {
    static const int stops[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    f = std::clamp(f, 0.0, 1.0) * 4;
    const int i = std::min(3, int(f));
    const double t = f - i;
    const auto mix = [&](int k) { return int(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * t); };
    return qRgb(mix(0), mix(1), mix(2));
}

// Values to colours: 256 looked up between the lowest and the highest value; no value: the base colour.
class ColourScale {
  public:
    ColourScale(QRgb empty, int64_t lo, int64_t hi)
        : empty_(empty), lo_(lo), factor_(255.0 / double(hi - lo)) {}
    int16_t index(int64_t v) const {
        return v < 0 ? -1 : int16_t(std::clamp(double(v - lo_) * factor_, 0.0, 255.0));
    }
    QRgb at(int16_t index) const {
        static const std::array<QRgb, 256> lut = [] {
            std::array<QRgb, 256> t;
            for (size_t i = 0; i < t.size(); ++i) t[i] = heat(double(i) / 255);
            return t;
        }();
        return index < 0 ? empty_ : lut[size_t(index)];
    }
    QRgb operator()(int64_t v) const { return at(index(v)); }

  private:
    QRgb empty_;
    int64_t lo_;
    double factor_;
};

} // namespace vs::ui
