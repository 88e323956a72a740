#include "window/Exporter.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace vs::ui {

namespace {
QString suffixOf(const QString& path) {
    return QFileInfo(path).suffix().toLower();
}

// Paints into an SVG or PDF file sized `size` points; `paint` opens its own painter on the device.
template <class Paint>
QString paintVector(const QString& path, QSize size, const QString& title, Paint paint) {
    if (suffixOf(path) == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        paint(&svg);
    } else {
        QPdfWriter pdf(path);
        pdf.setTitle(title);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        paint(&pdf);
    }
    return QFileInfo(path).size() > 0 ? QString() : QObject::tr("Cannot write %1").arg(path);
}
} // namespace

QString imageFileFilter() {
    return QObject::tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)");
}

QString exportPlot(QCustomPlot* plot, const QString& path, QSize size) {
    if (!size.isValid()) size = plot->size();
    const QString suffix = suffixOf(path);
    if (suffix == "png") {
        return plot->toPixmap(size.width(), size.height()).save(path, "PNG")
                   ? QString()
                   : QObject::tr("Cannot write %1").arg(path);
    }
    if (suffix != "svg" && suffix != "pdf")
        return QObject::tr("Unknown image type '%1': use .png, .svg or .pdf").arg(suffix);
    return paintVector(path, size, QStringLiteral("vramscope timeline"), [&](QPaintDevice* device) {
        QCPPainter painter(device);
        plot->toPainter(&painter, size.width(), size.height());
    });
}

QString exportWidget(QWidget* widget, const QString& path) {
    const QString suffix = suffixOf(path);
    if (suffix == "png")
        return widget->grab().save(path, "PNG") ? QString() : QObject::tr("Cannot write %1").arg(path);
    if (suffix != "svg" && suffix != "pdf")
        return QObject::tr("Unknown image type '%1': use .png, .svg or .pdf").arg(suffix);
    return paintVector(path, widget->size(), QStringLiteral("vramscope"), [&](QPaintDevice* device) {
        QPainter painter(device);
        widget->render(&painter);
    });
}

} // namespace vs::ui
