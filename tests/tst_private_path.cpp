// Private places in shared directories (core/util/PrivatePath): a directory someone else made, a
// symlink where the directory or the file should be, or a directory open to others is refused with
// a reason, never used or followed; what is made is 0700 / 0600 and ours.
#include "TestData.h"
#include "io/CaptureFile.h"
#include "io/VscapExport.h"
#include "util/PrivatePath.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace vs;

namespace {
struct stat lstatOf(const std::string& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st;
}
} // namespace

class TestPrivatePath : public QObject {
    Q_OBJECT
  private slots:
    void init() { QVERIFY(tmp_.isValid()); }
    void missingDirectoryIsMadePrivate();
    void existingPrivateDirectoryIsAccepted();
    void directoryOpenToOthersIsRefused();
    void symlinkInsteadOfDirectoryIsRefused();
    void directoryOfAnotherUserIsRefused();
    void directoryChownedToNobodyIsRefused();
    void tempDirsArePrivateAndFresh();
    void exclusiveFileIsNew();
    void exclusiveFileNeverFollowsASymlink();
    void vscapWriterIgnoresAPlantedPartFile();

  private:
    std::string path(const char* name) const {
        return tmp_.filePath(QString::fromLatin1(name)).toStdString();
    }
    QTemporaryDir tmp_;
};

void TestPrivatePath::missingDirectoryIsMadePrivate() {
    const std::string d = path("made");
    const mode_t old = ::umask(0); // the mode must not depend on the caller's umask being strict
    const std::string why = ensurePrivateDir(d);
    ::umask(old);
    QVERIFY2(why.empty(), why.c_str());
    const struct stat st = lstatOf(d);
    QVERIFY(S_ISDIR(st.st_mode));
    QCOMPARE(st.st_mode & 07777, mode_t(0700));
    QCOMPARE(st.st_uid, ::geteuid());
}

void TestPrivatePath::existingPrivateDirectoryIsAccepted() {
    const std::string d = path("mine");
    QCOMPARE(::mkdir(d.c_str(), 0700), 0);
    QCOMPARE(ensurePrivateDir(d), std::string());
}

void TestPrivatePath::directoryOpenToOthersIsRefused() {
    const std::string d = path("open");
    QCOMPARE(::mkdir(d.c_str(), 0700), 0);
    QCOMPARE(::chmod(d.c_str(), 0755), 0);
    const std::string why = ensurePrivateDir(d);
    QVERIFY2(why.find("mode 0755") != std::string::npos, why.c_str());
    QCOMPARE(lstatOf(d).st_mode & 07777, mode_t(0755)); // refused, not silently changed
}

void TestPrivatePath::symlinkInsteadOfDirectoryIsRefused() {
    const std::string target = path("target"), link = path("link");
    QCOMPARE(::mkdir(target.c_str(), 0700), 0); // private, ours: only the link is wrong
    QCOMPARE(::symlink(target.c_str(), link.c_str()), 0);
    const std::string why = ensurePrivateDir(link);
    QVERIFY2(why.find("symbolic link") != std::string::npos, why.c_str());
    const std::string dangling = path("dangling");
    QCOMPARE(::symlink(path("nowhere").c_str(), dangling.c_str()), 0);
    QVERIFY(ensurePrivateDir(dangling).find("symbolic link") != std::string::npos);
    QVERIFY(!QFileInfo::exists(QString::fromStdString(path("nowhere")))); // mkdir did not follow it
}

void TestPrivatePath::directoryOfAnotherUserIsRefused() {
    const std::string d = path("theirs");
    QCOMPARE(::mkdir(d.c_str(), 0700), 0);
    const uid_t other = ::geteuid() + 1; // as if another user had made it: the check compares owners
    const std::string why = ensurePrivateDir(d, other);
    QVERIFY2(why.find("belongs to uid " + std::to_string(::geteuid())) != std::string::npos, why.c_str());
}

void TestPrivatePath::directoryChownedToNobodyIsRefused() {
    const std::string d = path("nobody");
    QCOMPARE(::mkdir(d.c_str(), 0700), 0);
    if (::chown(d.c_str(), 65534, 65534) != 0) QSKIP("not root: cannot give a directory to nobody");
    const std::string why = ensurePrivateDir(d);
    QVERIFY2(why.find("belongs to uid 65534") != std::string::npos, why.c_str());
}

void TestPrivatePath::tempDirsArePrivateAndFresh() {
    const std::string a = makePrivateTempDir(tmp_.path().toStdString(), "launch-");
    const std::string b = makePrivateTempDir(tmp_.path().toStdString(), "launch-");
    QVERIFY(a != b);
    QVERIFY(QString::fromStdString(a).startsWith(tmp_.filePath("launch-")));
    QCOMPARE(lstatOf(a).st_mode & 07777, mode_t(0700));
    QCOMPARE(ensurePrivateDir(a), std::string());
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, makePrivateTempDir(path("missing/deeper"), "x-"));
}

void TestPrivatePath::exclusiveFileIsNew() {
    const std::string f = path("out.vscap");
    std::string error;
    const int fd = createExclusive(f, error);
    QVERIFY2(fd >= 0, error.c_str());
    QCOMPARE(::write(fd, "abc", 3), ssize_t(3));
    ::close(fd);
    QCOMPARE(lstatOf(f).st_mode & 07777, mode_t(0600));
    QCOMPARE(createExclusive(f, error), -1); // never truncates what is there
    QVERIFY2(error.find("already exists") != std::string::npos, error.c_str());
    QCOMPARE(lstatOf(f).st_size, off_t(3));
}

void TestPrivatePath::exclusiveFileNeverFollowsASymlink() {
    const std::string victim = path("victim"), link = path("planted.vscap");
    {
        QFile v(QString::fromStdString(victim));
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("precious");
    }
    QCOMPARE(::symlink(victim.c_str(), link.c_str()), 0);
    std::string error;
    QCOMPARE(createExclusive(link, error), -1);
    QCOMPARE(lstatOf(victim).st_size, off_t(8)); // untouched
    const std::string dangling = path("dangling.vscap"), created = path("would-be-created");
    QCOMPARE(::symlink(created.c_str(), dangling.c_str()), 0);
    QCOMPARE(createExclusive(dangling, error), -1);
    QVERIFY(!QFileInfo::exists(QString::fromStdString(created))); // nothing made through the link
}

// writeVscapFile writes OUT.part and renames it: a symlink planted at that predictable name is
// replaced, not written through.
void TestPrivatePath::vscapWriterIgnoresAPlantedPartFile() {
    const std::string victim = path("victim2"), out = path("written.vscap");
    {
        QFile v(QString::fromStdString(victim));
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("precious");
    }
    QCOMPARE(::symlink(victim.c_str(), (out + ".part").c_str()), 0);
    const auto capture = loadCaptureFile(test::samplePath("oom"), {});
    writeVscapFile(*capture, out);
    QCOMPARE(lstatOf(victim).st_size, off_t(8));
    QVERIFY(S_ISREG(lstatOf(out).st_mode));
    QVERIFY(!QFileInfo::exists(QString::fromStdString(out + ".part")));
    QCOMPARE(loadCaptureFile(out, {})->devices[0].eventCount(), capture->devices[0].eventCount());
}

QTEST_GUILESS_MAIN(TestPrivatePath)
#include "tst_private_path.moc"
