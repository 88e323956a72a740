#include "views/dialogs/HelpDialogs.h"

#include "common/Icons.h"

#include <qcustomplot.h>
#include <zlib.h>
#include <zstd.h>

#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QMessageBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace vs::ui {

void showHelp(QWidget* parent) {
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(QObject::tr("vramscope Help"));
    auto* text = new QTextBrowser(dialog);
    icons::application(); // registers the resources
    QFile page(QStringLiteral(":/help.html"));
    text->setHtml(page.open(QIODevice::ReadOnly) ? QString::fromUtf8(page.readAll())
                                                 : QObject::tr("The help page is missing from this build."));
    text->setOpenExternalLinks(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    layout->addWidget(buttons);
    dialog->resize(680, 620);
    dialog->show();
}

QString aboutText() {
    return QObject::tr(
               "<h3>vramscope %1</h3>"
               "<p>Finds GPU memory leaks in PyTorch and CUDA programs: memory over time, the "
               "allocator's blocks, the code that allocated what survived, and what keeps it alive.</p>"
               "<p><b>Built with</b></p><ul>"
               "<li>Qt %2 (running %3) \u2014 LGPL-3.0</li>"
               "<li>QCustomPlot %4 \u2014 GPL-3.0</li>"
               "<li>Zstandard %5 \u2014 BSD-3-Clause</li>"
               "<li>zlib %6 \u2014 zlib licence</li>"
               "<li>The CUPTI agent, when installed: NVIDIA CUPTI (CUDA Toolkit EULA), "
               "elfutils libdw (LGPL-3.0) and libunwind (MIT)</li></ul>")
        .arg(QApplication::applicationVersion(), QStringLiteral(QT_VERSION_STR),
             QString::fromLatin1(qVersion()), QStringLiteral(QCUSTOMPLOT_VERSION_STR),
             QString::fromLatin1(ZSTD_versionString()), QString::fromLatin1(zlibVersion()));
}

void showAbout(QWidget* parent) {
    QMessageBox box(parent);
    box.setWindowTitle(QObject::tr("About vramscope"));
    box.setIconPixmap(icons::application().pixmap(96, 96));
    box.setTextFormat(Qt::RichText);
    box.setText(aboutText());
    box.exec();
}

} // namespace vs::ui
