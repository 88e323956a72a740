#include "views/dialogs/ShortcutsDialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace vs::ui {

namespace {
QString plain(QString text) {
    return text.remove(QLatin1Char('&')).remove(QChar(0x2026)); // mnemonics and the ellipsis
}

void collect(QMenu* menu, const QString& path, QList<ShortcutsDialog::Row>& out) {
    for (QAction* a : menu->actions()) {
        if (a->menu()) {
            collect(a->menu(), path + QStringLiteral(" \u203a ") + plain(a->menu()->title()), out);
            continue;
        }
        if (a->isSeparator() || a->shortcut().isEmpty()) continue;
        out.push_back({path, plain(a->text()), a->shortcut().toString(QKeySequence::NativeText)});
    }
}

// What the mouse does, which no QAction says.
const char* const kGestures[][2] = {
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Wheel"),
     QT_TRANSLATE_NOOP("ShortcutsDialog", "Zoom time around the mouse")},
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Drag"), QT_TRANSLATE_NOOP("ShortcutsDialog", "Pan")},
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Ctrl+Drag"),
     QT_TRANSLATE_NOOP("ShortcutsDialog", "Zoom to a rectangle")},
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Shift+Drag"),
     QT_TRANSLATE_NOOP("ShortcutsDialog", "Select a range: what survived it shows in the Leaks tab")},
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Click"),
     QT_TRANSLATE_NOOP("ShortcutsDialog",
                       "Select the event at that moment; on a ramp, its growth region (inside a "
                       "selected range: the event only; outside it: the range is let go)")},
    {QT_TRANSLATE_NOOP("ShortcutsDialog", "Double-click"), QT_TRANSLATE_NOOP("ShortcutsDialog", "Fit all")},
};
} // namespace

QList<ShortcutsDialog::Row> ShortcutsDialog::rows(QMenuBar* menus) {
    QList<Row> out;
    for (QAction* a : menus->actions())
        if (a->menu()) collect(a->menu(), plain(a->menu()->title()), out);
    // one heading per menu: a submenu's rows come between its menu's (File, File › Open Recent,
    // File again); each menu's rows together, menus in the order they first appear
    QStringList order;
    for (const Row& r : out)
        if (!order.contains(r.menu)) order.push_back(r.menu);
    std::stable_sort(out.begin(), out.end(), [&](const Row& x, const Row& y) {
        return order.indexOf(x.menu) < order.indexOf(y.menu);
    });
    return out;
}

ShortcutsDialog::ShortcutsDialog(QMenuBar* menus, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    tree_ = new QTreeWidget(this);
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Action"), tr("Keys")});
    QString menu;
    QTreeWidgetItem* group = nullptr;
    auto heading = [&](const QString& text) {
        group = new QTreeWidgetItem(tree_, {text});
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        group->setFirstColumnSpanned(true);
        group->setExpanded(true);
    };
    for (const Row& r : rows(menus)) {
        if (r.menu != menu) heading(menu = r.menu);
        new QTreeWidgetItem(group, {r.action, r.keys});
    }
    heading(tr("Timeline (mouse)"));
    for (const auto& g : kGestures) new QTreeWidgetItem(group, {tr(g[1]), tr(g[0])});
    tree_->setRootIsDecorated(true);
    tree_->expandAll();
    tree_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    tree_->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tree_);
    layout->addWidget(buttons);
    resize(560, 640);
}

} // namespace vs::ui
