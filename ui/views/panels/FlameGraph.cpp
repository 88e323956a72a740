#include "views/panels/FlameGraph.h"

#include "analysis/stacks/FrameFilter.h"
#include "common/ByteAxisTicker.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace vs::ui {
namespace {
constexpr double kRow = 20;
}

FlameGraph::FlameGraph(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumHeight(60);
}

void FlameGraph::setTree(const Capture* capture, CallTree tree) {
    capture_ = capture;
    tree_ = std::move(tree);
    zoom_ = 0;
    laidOutFor_ = {};
    update();
}

void FlameGraph::setSearch(const QString& text) {
    search_ = text;
    update();
}

void FlameGraph::zoomTo(uint32_t node) {
    zoom_ = node < tree_.size() ? node : 0;
    laidOutFor_ = {};
    update();
}

QString FlameGraph::label(uint32_t node) const {
    if (node == 0 || !capture_) return tr("all surviving memory");
    const auto s = capture_->strings.text(capture_->frames[tree_.node(node).frame].name);
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

void FlameGraph::layout() const {
    boxes_.clear();
    laidOutFor_ = size();
    if (!capture_ || tree_.size() == 0 || tree_.node(zoom_).bytes == 0) return;
    // the zoomed node's ancestors as full-width bars on top, then its subtree scaled to the width
    std::vector<uint32_t> chain;
    for (uint32_t n = zoom_; n != UINT32_MAX; n = tree_.node(n).parent) chain.insert(chain.begin(), n);
    double y = 0;
    for (size_t i = 0; i + 1 < chain.size(); ++i, y += kRow)
        boxes_.push_back({QRectF(0, y, width(), kRow - 1), chain[i]});
    const double scale = width() / double(tree_.node(zoom_).bytes);
    struct Item {
        uint32_t node;
        double x, y;
    };
    std::vector<Item> todo{{zoom_, 0, y}};
    while (!todo.empty()) {
        const Item it = todo.back();
        todo.pop_back();
        const double w = double(tree_.node(it.node).bytes) * scale;
        if (w < 1 || it.y > height()) continue; // below a pixel: aggregated into the parent
        boxes_.push_back({QRectF(it.x, it.y, w - 1, kRow - 1), it.node});
        double x = it.x;
        for (uint32_t ch : tree_.node(it.node).children) {
            todo.push_back({ch, x, it.y + kRow});
            x += double(tree_.node(ch).bytes) * scale;
        }
    }
}

void FlameGraph::paintEvent(QPaintEvent*) {
    if (laidOutFor_ != size()) layout();
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (boxes_.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No surviving memory in this window"));
        return;
    }
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    for (const Box& b : boxes_) {
        const uint32_t n = b.node;
        const bool user = n != 0 && classifyFrame(*capture_, tree_.node(n).frame) == FrameKind::User;
        const bool hit =
            !search_.isEmpty() && n != 0 &&
            (label(n).contains(search_, Qt::CaseInsensitive) ||
             QString::fromUtf8(capture_->strings.text(capture_->frames[tree_.node(n).frame].filename).data())
                 .contains(search_, Qt::CaseInsensitive));
        QColor fill = user ? QColor(dark ? 200 : 235, dark ? 110 : 140, 60)
                           : QColor(dark ? 90 : 200, dark ? 110 : 200, dark ? 140 : 215);
        if (hit) fill = QColor(170, 80, 220);
        p.fillRect(b.rect, fill);
        if (b.rect.width() > 30) {
            p.setPen(dark && !user ? Qt::white : Qt::black);
            const QString text = label(n) + QStringLiteral("  ") + formatBytes(double(tree_.node(n).bytes));
            p.drawText(b.rect.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(text, Qt::ElideRight, int(b.rect.width()) - 5));
        }
    }
}

uint32_t FlameGraph::nodeAt(QPoint pos) const {
    if (laidOutFor_ != size()) layout();
    for (const Box& b : boxes_)
        if (b.rect.contains(pos)) return b.node;
    return UINT32_MAX;
}

void FlameGraph::mousePressEvent(QMouseEvent* e) {
    const uint32_t n = nodeAt(e->position().toPoint());
    if (n == UINT32_MAX) return;
    zoomTo(n == zoom_ ? tree_.node(n).parent == UINT32_MAX ? 0 : tree_.node(n).parent : n);
    emit nodeClicked(n);
}

void FlameGraph::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape || e->key() == Qt::Key_Home)
        zoomTo(0);
    else
        QWidget::keyPressEvent(e);
}

bool FlameGraph::event(QEvent* e) {
    if (e->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(e)->key() == Qt::Key_Escape &&
        zoom_ != 0) {
        e->accept(); // Escape zooms out here before it clears the timeline selection
        return true;
    }
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const uint32_t n = nodeAt(help->pos());
        if (n == UINT32_MAX || !capture_) return QToolTip::hideText(), true;
        const CallNode& node = tree_.node(n);
        QString where;
        if (n != 0) {
            const Frame& f = capture_->frames[node.frame];
            where = QString::fromUtf8(capture_->strings.text(f.filename).data()) + ':' +
                    QString::number(f.line) + '\n';
        }
        QToolTip::showText(
            help->globalPos(),
            label(n) + '\n' + where +
                tr("%1 in %2 blocks (%3 % of the window's survivors)")
                    .arg(formatBytes(double(node.bytes)))
                    .arg(node.count)
                    .arg(100.0 * double(node.bytes) / double(std::max<uint64_t>(1, tree_.node(0).bytes)), 0,
                         'f', 1),
            this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace vs::ui
