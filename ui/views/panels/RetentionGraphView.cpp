#include "views/panels/RetentionGraphView.h"

#include "model/Capture.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <map>

namespace vs::ui {

namespace {
constexpr size_t kMaxBlocks = 6; // a fan-out beyond this is folded into "+N more blocks"

QColor colourOf(const RetentionGraph& g, uint32_t node) {
    if (node >= g.nodes.size()) return QColor(0xd9, 0x53, 0x4f); // the unreachable-cycle root
    switch (g.nodes[node].kind) {
    case RetentionNodeKind::Block:
        return QColor(0x2a, 0x6f, 0xdb);
    case RetentionNodeKind::Tensor:
        return QColor(0x5b, 0x9b, 0xd5);
    case RetentionNodeKind::Autograd:
        return QColor(0x9b, 0x6b, 0xc9);
    case RetentionNodeKind::RootModule:
    case RetentionNodeKind::RootFrame:
        return QColor(0x3c, 0x9d, 0x5a);
    case RetentionNodeKind::RootExternal:
        return QColor(0xe0, 0x8a, 0x1e);
    case RetentionNodeKind::RootPool:
        return QColor(0x1e, 0xa0, 0xa0);
    case RetentionNodeKind::Object:
        break;
    }
    return QColor(0x8a, 0x8f, 0x98);
}
} // namespace

RetentionGraphView::RetentionGraphView(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(80);
    setToolTip(tr("Shortest retention paths of the selected group: roots on top, blocks at the bottom"));
}

void RetentionGraphView::setPaths(const Capture* c, const RetentionGraph* g, const RetentionResult* r,
                                  const std::vector<uint32_t>& blocks) {
    nodes_.clear(), edges_.clear(), folded_ = 0;
    if (!c || !g || !r) return update();
    std::map<uint32_t, int> index; // graph node -> draw node
    for (size_t k = 0; k < blocks.size(); ++k) {
        if (k >= kMaxBlocks) {
            folded_ = int(blocks.size() - kMaxBlocks);
            break;
        }
        const auto path = retentionPath(*g, *r, blocks[k]);
        int previous = -1;
        for (size_t i = 0; i < path.size(); ++i) {
            auto [it, fresh] = index.emplace(path[i], int(nodes_.size()));
            if (fresh)
                nodes_.push_back(
                    {path[i], int(i), QString::fromStdString(retentionNodeText(*c, *g, path[i])),
                     colourOf(*g, path[i]),
                     path[i] < g->nodes.size() && g->nodes[path[i]].kind == RetentionNodeKind::Block});
            if (previous >= 0) {
                const uint32_t e = r->parentEdge[path[i]];
                const QString label =
                    e < g->edges.size()
                        ? QString::fromUtf8(c->strings.text(g->edges[e].label).data(),
                                            qsizetype(c->strings.text(g->edges[e].label).size()))
                        : QString();
                bool known = false;
                for (const auto& de : edges_) known |= de.from == previous && de.to == it->second;
                if (!known) edges_.push_back({previous, it->second, label});
            }
            previous = it->second;
        }
    }
    collapseChains();
    // each layer needs its box and an edge label above it: a short panel scrolls instead of drawing
    // the labels under the boxes
    int layers = 0;
    for (const auto& n : nodes_)
        if (!n.removed) layers = std::max(layers, n.layer + 1);
    setMinimumHeight(std::max(80, 20 + layers * (2 * fontMetrics().height() + 18)));
    update();
}

// A node with one edge in and one edge out (not a root, not a block) becomes part of an edge's label,
// so long chains (tensor -> grad_fn -> next_functions -> ...) take one step of the drawing.
void RetentionGraphView::collapseChains() {
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t n = 0; n < nodes_.size(); ++n) {
            if (nodes_[n].layer == 0 || nodes_[n].removed) continue;
            int in = -1, out = -1, ins = 0, outs = 0;
            for (size_t e = 0; e < edges_.size(); ++e) {
                if (edges_[e].to == int(n)) in = int(e), ++ins;
                if (edges_[e].from == int(n)) out = int(e), ++outs;
            }
            if (ins != 1 || outs != 1 || nodes_[edges_[out].to].isBlock) continue;
            QStringList parts;
            for (const QString& p : {edges_[in].label, nodes_[n].text, edges_[out].label})
                if (!p.isEmpty()) parts << p;
            edges_[in].to = edges_[out].to;
            edges_[in].label = parts.join(QStringLiteral(" \u2192 "));
            edges_.erase(edges_.begin() + out);
            nodes_[n].removed = true;
            changed = true;
        }
    }
    // Layers again: the distance from the root along the collapsed edges.
    for (auto& n : nodes_)
        if (n.layer != 0) n.layer = -1;
    for (bool moved = true; moved;) {
        moved = false;
        for (const auto& e : edges_)
            if (nodes_[e.from].layer >= 0 && nodes_[e.to].layer < nodes_[e.from].layer + 1 &&
                !nodes_[e.to].removed)
                nodes_[e.to].layer = nodes_[e.from].layer + 1, moved = true;
    }
}

bool RetentionGraphView::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    const auto* help = static_cast<QHelpEvent*>(e);
    for (const auto& [box, text] : boxes_)
        if (box.contains(help->pos())) return QToolTip::showText(help->globalPos(), text, this), true;
    QToolTip::hideText();
    return true;
}

int RetentionGraphView::nodeCount() const {
    return int(std::count_if(nodes_.begin(), nodes_.end(), [](const DrawNode& n) { return !n.removed; }));
}

void RetentionGraphView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (nodes_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Select a group to draw its retention paths"));
        return;
    }
    boxes_.clear();
    int layers = 0;
    for (const auto& n : nodes_)
        if (!n.removed) layers = std::max(layers, n.layer + 1);
    std::vector<int> perLayer(layers, 0), slot(nodes_.size(), 0);
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (!nodes_[i].removed) slot[i] = perLayer[nodes_[i].layer]++;
    const double rowH = double(height() - 20) / std::max(1, layers);
    auto centre = [&](int i) {
        const double w = double(width()) / (perLayer[nodes_[i].layer] + 1);
        return QPointF(w * (slot[i] + 1), 10 + rowH * (nodes_[i].layer + 0.5));
    };
    p.setRenderHint(QPainter::Antialiasing);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    const QFontMetrics fm(small);
    for (const auto& e : edges_) {
        const QPointF a = centre(e.from), b = centre(e.to);
        p.setPen(QPen(palette().color(QPalette::Mid), 1.2));
        p.drawLine(a, b);
        if (e.label.isEmpty()) continue;
        // a label gets the width of its target's slot: siblings' labels never overlap
        const int room = int(double(width()) / (perLayer[nodes_[e.to].layer] + 1)) - 10;
        p.setPen(palette().color(QPalette::Text));
        // just above the target's box, where siblings are nearly as far apart as their boxes, and
        // never on a box: the point of the edge whose height clears both boxes
        const double half = (fm.height() + 6) / 2.0, label = fm.height() / 2.0 + 2;
        const double t = std::clamp((b.y() - half - label - a.y()) / std::max(1.0, b.y() - a.y()),
                                    (half + label) / std::max(1.0, b.y() - a.y()), 1.0);
        const QPointF at = a + (b - a) * t;
        // a cut edge label ("[139…565]") says nothing and siblings' run together: whole or not at
        // all (the Shortest path line above names every key)
        if (fm.horizontalAdvance(e.label) > room) continue;
        const QString text = e.label;
        QRectF box(0, 0, fm.horizontalAdvance(text) + 6, fm.height());
        box.moveCenter(at);
        p.fillRect(box, palette().base());
        p.drawText(box, Qt::AlignCenter, text);
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
        if (nodes_[i].removed) continue;
        const QPointF c = centre(int(i));
        const double slotW = double(width()) / (perLayer[nodes_[i].layer] + 1) - 6;
        // the end of a label ("float32", "(1.00 MiB)") is what tells nodes apart: elide the middle
        // of the type, keep the tail; the whole text is in the tooltip
        const QString text =
            fm.elidedText(nodes_[i].text, Qt::ElideLeft, int(std::max(40.0, std::min(slotW, 260.0))));
        QRectF box(0, 0, fm.horizontalAdvance(text) + 12, fm.height() + 6);
        box.moveCenter(c);
        boxes_.emplace_back(box, nodes_[i].text);
        QPainterPath path;
        path.addRoundedRect(box, 4, 4);
        p.fillPath(path, nodes_[i].colour.lighter(185));
        p.setPen(QPen(nodes_[i].colour, 1.6));
        p.drawPath(path);
        p.setPen(Qt::black); // on the light fill in either palette
        p.drawText(box, Qt::AlignCenter, text);
    }
    if (folded_) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(rect().adjusted(0, 0, -8, -4), Qt::AlignRight | Qt::AlignBottom,
                   tr("+%1 more blocks").arg(folded_));
    }
}

} // namespace vs::ui
