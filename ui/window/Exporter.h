#pragma once
// Writing views to image files (PNG, SVG, PDF, chosen by the file's suffix) and the clipboard.
#include <QSize>
#include <QString>

class QWidget;
class QCustomPlot;

namespace vs::ui {

// Returns an empty string on success, else a message for the user.
QString exportPlot(QCustomPlot* plot, const QString& path, QSize size = {});
QString exportWidget(QWidget* widget, const QString& path);
QString imageFileFilter();

} // namespace vs::ui
