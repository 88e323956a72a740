#pragma once
// What the device's memory is made of over time, as stacked bands up to what nvidia-smi shows:
// PyTorch's allocated bytes by category, its cache, what was allocated outside PyTorch by library
// (a recording with both levels) and the gap to the driver's figure (core: analysis/Composition).
// Computed once per capture on the session's runner; hover tells every band's bytes at that
// moment; a click moves the session's moment (the block map) there.
#include "analysis/composition/Composition.h"
#include <QBrush>

#include <QWidget>

#include <memory>

class QCustomPlot;
class QLabel;

namespace vs::ui {

class Session;

// The stacked bands of one device sampled over its time span (immutable, built in the background).
struct CompositionBands {
    std::vector<double> seconds; // sample times, seconds since the capture's origin
    std::vector<int64_t> timesUs;
    std::vector<QString> names;            // bottom to top
    std::vector<std::vector<double>> tops; // by band: the cumulative top at each sample (bytes)
    std::vector<QBrush> brushes;           // by band
    QString basis;                         // how the categories were decided, one sentence
};

class CompositionView : public QWidget {
    Q_OBJECT
  public:
    explicit CompositionView(QWidget* parent = nullptr);
    void follow(Session* session);
    const CompositionBands& bands() const { return bands_; }
    // The sentence shown for the moment under the mouse (also the tooltip).
    QString describe(double seconds) const;

  protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

  private:
    void compute();
    void showBands(const CompositionBands& b);
    Session* session_ = nullptr;
    QCustomPlot* plot_;
    QLabel* header_;
    std::shared_ptr<const Composition> composition_;
    CompositionBands bands_;
    int pressX_ = -1;
};

} // namespace vs::ui
