#pragma once
// The action icons (resources/icons/actions/*.svg, one stroke set) drawn in the palette's text
// colour, so one set serves light and dark themes; a palette change redraws every icon set here.
#include <QIcon>
#include <QPalette>

class QAction;
class QWidget;

namespace vs::ui::icons {

QIcon named(const QString& name, const QPalette& palette);
QIcon application(); // vramscope's own icon, for windows and the About dialog
// Gives `action` the icon `name` and remembers it, so that refresh() redraws it for a new palette.
QAction* set(QAction* action, const QString& name, const QPalette& palette);
QAction* find(QWidget* window, const QString& name); // the window's action given that icon
void refresh(QWidget* window); // every remembered icon of the window's actions, in its palette

} // namespace vs::ui::icons
