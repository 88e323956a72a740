#include "views/compare/DiffFlameGraph.h"

#include "common/SignedBytes.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>
#include <cstdlib>

namespace vs::ui {
namespace {
constexpr double kDiffRow = 20;

} // namespace

DiffFlameGraph::DiffFlameGraph(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(60);
}

void DiffFlameGraph::setTree(DiffTree tree) {
    tree_ = std::move(tree);
    laidOutFor_ = {};
    update();
}

void DiffFlameGraph::layout() const {
    boxes_.clear();
    laidOutFor_ = size();
    if (tree_.size() == 0 || tree_.node(0).weight == 0) return;
    const double scale = width() / double(tree_.node(0).weight);
    // depth-first from the root, each child placed after its older siblings
    struct Item {
        uint32_t node;
        double x;
        int depth;
    };
    std::vector<Item> stack{{0, 0, 0}};
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const double w = double(tree_.node(it.node).weight) * scale;
        if (w < 1) continue;
        boxes_.push_back({QRectF(it.x, it.depth * kDiffRow, w - 1, kDiffRow - 1), it.node});
        double x = it.x;
        for (uint32_t k : tree_.node(it.node).children) {
            stack.push_back({k, x, it.depth + 1});
            x += double(tree_.node(k).weight) * scale;
        }
    }
}

QColor DiffFlameGraph::colour(const DiffNode& n) const {
    // the net change's share of the node's width: 1 where everything below moved one way
    const double share = n.weight ? std::min(1.0, std::abs(double(n.delta())) / double(n.weight)) : 0;
    const int fade = int(200 - 140 * share);
    if (n.delta() > 0) return QColor(235, fade, fade - 20 > 0 ? fade - 20 : 0);
    if (n.delta() < 0) return QColor(fade - 20 > 0 ? fade - 20 : 0, fade + 20 > 255 ? 255 : fade + 20, 240);
    return QColor(200, 200, 200);
}

void DiffFlameGraph::paintEvent(QPaintEvent*) {
    if (laidOutFor_ != size()) layout();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (boxes_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No call path holds a different amount of memory"));
        return;
    }
    for (const Box& b : boxes_) {
        const DiffNode& n = tree_.node(b.node);
        p.fillRect(b.rect, colour(n));
        if (b.rect.width() > 30) {
            p.setPen(Qt::black);
            const QString text = QString::fromStdString(b.node == 0 ? std::string("all") : n.frame) +
                                 QStringLiteral("  ") + formatSignedBytes(n.delta());
            p.drawText(b.rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(text, Qt::ElideRight, int(b.rect.width()) - 5));
        }
    }
}

uint32_t DiffFlameGraph::nodeAt(QPoint pos) const {
    if (laidOutFor_ != size()) layout();
    for (const Box& b : boxes_)
        if (b.rect.contains(pos)) return b.node;
    return UINT32_MAX;
}

bool DiffFlameGraph::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* h = static_cast<QHelpEvent*>(e);
        const uint32_t n = nodeAt(h->pos());
        if (n == UINT32_MAX) {
            QToolTip::hideText();
        } else {
            const DiffNode& d = tree_.node(n);
            QToolTip::showText(h->globalPos(),
                               tr("%1\nA: %2   B: %3   B\u2212A: %4")
                                   .arg(QString::fromStdString(d.frame), formatBytes(double(d.a)),
                                        formatBytes(double(d.b)), formatSignedBytes(d.delta())),
                               this);
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace vs::ui
