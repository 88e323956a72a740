// MainWindow's bug-report exports: images with a title line (file, device and GPU, range shown,
// diagnosis) and without the pointer's marks, the Markdown report, save dialogs beside the capture.
#include "analysis/growth/BugReport.h"
#include "session/Session.h"
#include "timeline/TimelinePlot.h"
#include "views/panels/LeaksPanel.h"
#include "window/Exporter.h"
#include "window/MainWindow.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace vs::ui {

namespace {
// What the views show now, as the core's report context: the device, the range on screen and the
// Leaks tab's diagnosis when it is about that device.
ReportContext contextOf(const Session& session, const TimelinePlot& timeline, const LeaksPanel& leaks) {
    ReportContext ctx;
    ctx.device = session.device();
    const QCPRange r = timeline.visibleRange();
    ctx.fromSeconds = std::max(0.0, r.lower), ctx.toSeconds = r.upper;
    const LeakReport& report = leaks.report();
    if (leaks.device() == session.device() && !report.summary.empty()) ctx.report = &report;
    return ctx;
}
} // namespace

QString MainWindow::exportTitle() const {
    if (!session_->isOpen()) return {};
    return QString::fromStdString(
        vs::exportTitle(*session_->analysis(), contextOf(*session_, *timeline_, *leaks_)));
}

QString MainWindow::summaryMarkdown(const QString& image) const {
    if (!session_->isOpen()) return {};
    ReportContext ctx = contextOf(*session_, *timeline_, *leaks_);
    ctx.image = image.toStdString();
    return QString::fromStdString(bugReportMarkdown(*session_->analysis(), ctx));
}

QString MainWindow::besideCapture(const QString& name) const {
    const QFileInfo capture(session_->path());
    if (capture.exists()) return capture.absoluteDir().filePath(name);
    const QString last = QSettings().value(QStringLiteral("lastDir")).toString();
    return last.isEmpty() ? QDir::home().filePath(name) : QDir(last).filePath(name);
}

void MainWindow::exportTimeline() {
    if (!session_->isOpen()) return;
    exportWith(tr("Export timeline"), QFileInfo(session_->path()).completeBaseName() + "-timeline.png",
               [this](const QString& path) {
                   TimelinePlot::ExportScope clean(timeline_);
                   return exportPlot(timeline_, path, {}, exportTitle());
               });
}

void MainWindow::exportWindow() {
    exportWith(tr("Export window"), QStringLiteral("vramscope.png"), [this](const QString& path) {
        TimelinePlot::ExportScope clean(timeline_);
        return exportWidget(this, path, exportTitle());
    });
}

// NAME-report.md and NAME-timeline.png side by side; the Markdown links the image by its name.
void MainWindow::exportBugReport() {
    if (!session_->isOpen()) return;
    const QString base = QFileInfo(session_->path()).completeBaseName();
    exportWith(
        tr("Export bug report"), base + "-report.md",
        [this](const QString& path) {
            const QString image = QFileInfo(path).completeBaseName() + ".png";
            TimelinePlot::ExportScope clean(timeline_);
            QString error = exportPlot(timeline_, QFileInfo(path).dir().filePath(image), {}, exportTitle());
            if (!error.isEmpty()) return error;
            QFile md(path);
            if (!md.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
                md.write(summaryMarkdown(image).toUtf8()) < 0)
                return tr("Cannot write %1").arg(path);
            return QString();
        },
        tr("Markdown (*.md)"));
}

void MainWindow::copyImage() {
    if (!session_->isOpen()) return;
    TimelinePlot::ExportScope clean(timeline_);
    QApplication::clipboard()->setPixmap(plotPixmap(timeline_, timeline_->size(), exportTitle()));
    statusBar()->showMessage(tr("Timeline image copied"), 3000);
}

void MainWindow::copySummary() {
    if (!session_->isOpen()) return;
    QApplication::clipboard()->setText(summaryMarkdown());
    statusBar()->showMessage(tr("Summary copied as Markdown"), 3000);
}

void MainWindow::exportWith(const QString& title, const QString& suggested,
                            const std::function<QString(const QString&)>& write, const QString& filter) {
    const QString path = QFileDialog::getSaveFileName(this, title, besideCapture(suggested),
                                                      filter.isEmpty() ? imageFileFilter() : filter);
    if (path.isEmpty()) return;
    const QString error = write(path);
    if (!error.isEmpty())
        QMessageBox::warning(this, title, error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
}

} // namespace vs::ui
