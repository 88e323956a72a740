#pragma once
// A differential icicle graph of two captures: the root spans the width, each row a call depth,
// widths proportional to how much the memory below a frame changed (sum of |B − A| of its stacks),
// red where B holds more, blue where it holds less, the deeper the colour the larger the share of the
// change. Tooltips give A, B and the difference.
#include "compare/DiffTree.h"

#include <QWidget>

#include <vector>

namespace vs::ui {

class DiffFlameGraph : public QWidget {
    Q_OBJECT
  public:
    explicit DiffFlameGraph(QWidget* parent = nullptr);
    void setTree(DiffTree tree);
    uint32_t nodeAt(QPoint p) const; // UINT32_MAX when none
    const DiffTree& tree() const { return tree_; }

  protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override;

  private:
    struct Box {
        QRectF rect;
        uint32_t node;
    };
    void layout() const;
    QColor colour(const DiffNode& n) const;

    DiffTree tree_;
    mutable std::vector<Box> boxes_;
    mutable QSize laidOutFor_;
};

} // namespace vs::ui
