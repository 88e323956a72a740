#pragma once
// An icicle flame graph of a top-down CallTree: the root spans the width, each row one call depth,
// widths proportional to surviving bytes. Click a node to zoom into it, click the top bar or press
// Escape to zoom out; frames matching the search are highlighted; tooltips give the numbers.
#include "analysis/stacks/CallTree.h"

#include <QWidget>

namespace vs::ui {

class FlameGraph : public QWidget {
    Q_OBJECT
  public:
    explicit FlameGraph(QWidget* parent = nullptr);
    void setTree(const Capture* capture, CallTree tree);
    void setSearch(const QString& text);
    void zoomTo(uint32_t node);
    uint32_t zoomedNode() const { return zoom_; }
    uint32_t nodeAt(QPoint p) const; // UINT32_MAX when none

  signals:
    void nodeClicked(uint32_t node);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    bool event(QEvent* e) override;

  private:
    struct Box {
        QRectF rect;
        uint32_t node;
    };
    void layout() const; // boxes for the current size and zoom (cached)
    QString label(uint32_t node) const;

    const Capture* capture_ = nullptr;
    CallTree tree_;
    uint32_t zoom_ = 0;
    QString search_;
    mutable std::vector<Box> boxes_;
    mutable QSize laidOutFor_;
};

} // namespace vs::ui
