#pragma once
// Writing views to image files (PNG, SVG, PDF, chosen by the file's suffix) and the clipboard. A
// title line (the file, device, range and diagnosis) goes above the view when one is given; the
// image keeps the asked size.
#include <QSize>
#include <QString>

class QWidget;
class QCustomPlot;
class QPixmap;

namespace vs::ui {

// Returns an empty string on success, else a message for the user.
QString exportPlot(QCustomPlot* plot, const QString& path, QSize size = {}, const QString& title = {});
QString exportWidget(QWidget* widget, const QString& path, const QString& title = {});
QPixmap plotPixmap(QCustomPlot* plot, QSize size, const QString& title); // for the clipboard
QString imageFileFilter();
int exportTitleHeight(const QWidget* view, const QString& title); // pixels the title line takes

} // namespace vs::ui
