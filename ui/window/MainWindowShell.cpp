// MainWindow's first-run shell: the welcome page while nothing is open, the toolbar with the main
// actions, and icons that follow the palette.
#include "common/Icons.h"
#include "session/Session.h"
#include "views/dialogs/WelcomePage.h"
#include "window/MainWindow.h"

#include <QAction>
#include <QEvent>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>
#include <QToolBar>

namespace vs::ui {

namespace {
// The toolbar, left to right; "" is a separator. Names are the actions' icons (icons::set).
const char* const kToolBar[] = {"open",
                                "reload",
                                "",
                                "export",
                                "copy-summary",
                                "",
                                "fit",
                                "zoom-back",
                                "zoom-forward",
                                "zoom-selection",
                                "",
                                "previous-region",
                                "next-region",
                                "",
                                "listen",
                                "launch",
                                "",
                                "help"};
} // namespace

void MainWindow::buildShell() {
    setWindowIcon(icons::application());
    toolBar_ = addToolBar(tr("Main"));
    toolBar_->setObjectName(QStringLiteral("mainToolBar")); // saveState() needs a name
    toolBar_->setIconSize(QSize(20, 20));
    toolBar_->setMovable(false);
    for (const char* name : kToolBar) {
        if (!*name) {
            toolBar_->addSeparator();
        } else if (QAction* a = icons::find(this, QString::fromLatin1(name))) {
            toolBar_->addAction(a);
        }
    }
    QList<QAction*> start;
    for (const char* name : {"open", "listen", "launch", "help"})
        if (QAction* a = icons::find(this, QString::fromLatin1(name))) start << a;
    welcome_ = new WelcomePage(start, this);
    welcome_->setObjectName(QStringLiteral("welcomePage"));
    connect(welcome_, &WelcomePage::openRequested, this, &MainWindow::openFile);
    // A details tab must not set the window's minimum height (the What-if and Retention tabs would
    // make it taller than a 1280x800 screen's work area): a short window squeezes the tab instead.
    for (int i = 0; i < details_->count(); ++i) {
        QWidget* page = details_->widget(i);
        page->setSizePolicy(page->sizePolicy().horizontalPolicy(), QSizePolicy::Ignored);
    }
    QWidget* views = takeCentralWidget();
    pages_ = new QStackedWidget(this);
    auto* scroll = new QScrollArea(this); // a small window scrolls the page rather than growing
    scroll->setWidget(welcome_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    pages_->addWidget(scroll);
    pages_->addWidget(views);
    setCentralWidget(pages_);
}

bool MainWindow::showingWelcome() const {
    return pages_->currentIndex() == 0;
}

void MainWindow::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) icons::refresh(this);
    QMainWindow::changeEvent(e);
}

} // namespace vs::ui
