#include "window/Exporter.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <functional>

namespace vs::ui {

namespace {
QString suffixOf(const QString& path) {
    return QFileInfo(path).suffix().toLower();
}

// The title line across the top `height` pixels of a `width`-wide image, in the view's colours.
void paintTitle(QPainter& p, const QWidget* view, const QString& title, int width, int height) {
    if (title.isEmpty()) return;
    p.fillRect(QRect(0, 0, width, height), view->palette().color(QPalette::Base));
    QFont bold = view->font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(view->palette().color(QPalette::Text));
    const QRect box(8, 0, width - 16, height);
    p.drawText(box, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(title, Qt::ElideMiddle, box.width()));
}

// Paints title and view into an SVG or PDF file sized `size` points; `view` paints below the title.
QString paintVector(const QString& path, QSize size, const QString& title, const QWidget* owner,
                    const std::function<void(QPainter&, QSize)>& view) {
    const int top = exportTitleHeight(owner, title);
    auto paint = [&](QPaintDevice* device) {
        QCPPainter painter(device);
        paintTitle(painter, owner, title, size.width(), top);
        painter.translate(0, top);
        view(painter, QSize(size.width(), size.height() - top));
    };
    const QString name = title.isEmpty() ? QStringLiteral("vramscope") : title;
    if (suffixOf(path) == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(name);
        paint(&svg);
    } else {
        QPdfWriter pdf(path);
        pdf.setTitle(name);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        paint(&pdf);
    }
    return QFileInfo(path).size() > 0 ? QString() : QObject::tr("Cannot write %1").arg(path);
}

QString savePng(const QPixmap& pixmap, const QString& path) {
    return pixmap.save(path, "PNG") ? QString() : QObject::tr("Cannot write %1").arg(path);
}

QString unknownType(const QString& path) {
    return QObject::tr("Unknown image type '%1': use .png, .svg or .pdf").arg(suffixOf(path));
}

// A title line above a view's pixmap, in one pixmap of the view's width.
QPixmap withTitle(const QPixmap& view, const QWidget* owner, const QString& title) {
    const int top = exportTitleHeight(owner, title);
    if (!top) return view;
    QPixmap out(view.width(), view.height() + top);
    QPainter p(&out);
    paintTitle(p, owner, title, view.width(), top);
    p.drawPixmap(0, top, view);
    return out;
}
} // namespace

int exportTitleHeight(const QWidget* view, const QString& title) {
    return title.isEmpty() ? 0 : view->fontMetrics().height() * 2;
}

QString imageFileFilter() {
    return QObject::tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)");
}

QPixmap plotPixmap(QCustomPlot* plot, QSize size, const QString& title) {
    if (!size.isValid()) size = plot->size();
    const int top = exportTitleHeight(plot, title);
    return withTitle(plot->toPixmap(size.width(), size.height() - top), plot, title);
}

QString exportPlot(QCustomPlot* plot, const QString& path, QSize size, const QString& title) {
    if (!size.isValid()) size = plot->size();
    const QString suffix = suffixOf(path);
    if (suffix == "png") return savePng(plotPixmap(plot, size, title), path);
    if (suffix != "svg" && suffix != "pdf") return unknownType(path);
    return paintVector(path, size, title, plot, [plot](QPainter& painter, QSize s) {
        plot->toPainter(static_cast<QCPPainter*>(&painter), s.width(), s.height());
    });
}

QString exportWidget(QWidget* widget, const QString& path, const QString& title) {
    const QString suffix = suffixOf(path);
    if (suffix == "png") return savePng(withTitle(widget->grab(), widget, title), path);
    if (suffix != "svg" && suffix != "pdf") return unknownType(path);
    const QSize size(widget->width(), widget->height() + exportTitleHeight(widget, title));
    return paintVector(path, size, title, widget,
                       [widget](QPainter& painter, QSize) { widget->render(&painter); });
}

} // namespace vs::ui
