#include "common/Icons.h"

#include <QAction>
#include <QFile>
#include <QPainter>
#include <QSvgRenderer>
#include <QWidget>

// The resources live in a static library: registered once, before the first icon is read.
static void initResources() {
    static const bool done = [] {
        Q_INIT_RESOURCE(vramscope);
        return true;
    }();
    Q_UNUSED(done);
}

namespace vs::ui::icons {

namespace {
constexpr char kProperty[] = "vramscopeIcon";

QPixmap render(const QByteArray& svg, int size) {
    QSvgRenderer renderer(svg);
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    renderer.render(&painter);
    return pixmap;
}
} // namespace

QIcon named(const QString& name, const QPalette& palette) {
    initResources();
    QFile file(QStringLiteral(":/icons/actions/%1.svg").arg(name));
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray svg = file.readAll();
    // the set is drawn in #000000: each mode gets its palette's text colour instead
    auto coloured = [&](QPalette::ColorGroup group) {
        QByteArray s = svg;
        return s.replace("#000000", palette.color(group, QPalette::WindowText).name().toLatin1());
    };
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48}) {
        icon.addPixmap(render(coloured(QPalette::Active), size), QIcon::Normal);
        icon.addPixmap(render(coloured(QPalette::Disabled), size), QIcon::Disabled);
    }
    return icon;
}

QIcon application() {
    initResources();
    return QIcon(QStringLiteral(":/icons/vramscope.svg"));
}

QAction* set(QAction* action, const QString& name, const QPalette& palette) {
    action->setProperty(kProperty, name);
    action->setIcon(named(name, palette));
    return action;
}

QAction* find(QWidget* window, const QString& name) {
    for (QAction* a : window->findChildren<QAction*>())
        if (a->property(kProperty).toString() == name) return a;
    return nullptr;
}

void refresh(QWidget* window) {
    for (QAction* a : window->findChildren<QAction*>()) {
        const QString name = a->property(kProperty).toString();
        if (!name.isEmpty()) a->setIcon(named(name, window->palette()));
    }
}

} // namespace vs::ui::icons
