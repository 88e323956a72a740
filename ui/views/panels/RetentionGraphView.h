#pragma once
// A layered drawing of retention paths: roots on top, blocks at the bottom, one layer per step,
// labelled edges; the union of a group's shortest paths (up to 6 blocks; the rest folded into
// "+N more"). Layers come free: a node's layer is its distance from the root on its path.
#include "analysis/retention/Retention.h"

#include <QColor>
#include <QWidget>

#include <vector>

namespace vs {
struct Capture;
}

namespace vs::ui {

class RetentionGraphView : public QWidget {
    Q_OBJECT
  public:
    explicit RetentionGraphView(QWidget* parent = nullptr);
    void setPaths(const Capture* c, const RetentionGraph* g, const RetentionResult* r,
                  const std::vector<uint32_t>& blocks);
    QSize sizeHint() const override { return {600, 320}; }
    int nodeCount() const; // nodes drawn, after chains were collapsed

  protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override; // a node's tooltip: its whole label

  private:
    struct DrawNode {
        uint32_t node;
        int layer;
        QString text;
        QColor colour;
        bool isBlock = false;
        bool removed = false; // folded into an edge by collapseChains()
    };
    void collapseChains();
    struct DrawEdge {
        int from, to;
        QString label;
    };
    std::vector<DrawNode> nodes_;
    std::vector<DrawEdge> edges_;
    std::vector<std::pair<QRectF, QString>> boxes_; // where the last paint put each node
    int folded_ = 0;
};

} // namespace vs::ui
