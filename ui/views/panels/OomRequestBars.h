#pragma once
// At an out-of-memory moment, above the block map: the failed request and the largest free block
// of its pool as two bars to one scale, so that "it did not fit" is seen, not only read. Hidden at
// every other moment.
#include <QWidget>

#include <cstdint>

namespace vs::ui {

class OomRequestBars : public QWidget {
    Q_OBJECT
  public:
    explicit OomRequestBars(QWidget* parent = nullptr);
    void setSizes(uint64_t request, uint64_t largestFree); // shows the bars
    uint64_t request() const { return request_; }
    uint64_t largestFree() const { return largestFree_; }
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent*) override;

  private:
    uint64_t request_ = 0, largestFree_ = 0;
};

} // namespace vs::ui
