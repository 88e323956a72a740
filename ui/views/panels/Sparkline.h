#pragma once
// A small step line: one group's live bytes over the whole capture, with the window shaded.
#include <QWidget>

#include <vector>

namespace vs::ui {

class Sparkline : public QWidget {
    Q_OBJECT
  public:
    explicit Sparkline(QWidget* parent = nullptr);
    // Points (seconds, live bytes) in time order; the step holds until the next point.
    void setSeries(std::vector<std::pair<double, double>> points, double end, double windowFrom,
                   double windowTo, const QString& caption);
    size_t pointCount() const { return points_.size(); }

  protected:
    void paintEvent(QPaintEvent*) override;

  private:
    std::vector<std::pair<double, double>> points_;
    double end_ = 1, from_ = 0, to_ = 0;
    QString caption_;
};

} // namespace vs::ui
