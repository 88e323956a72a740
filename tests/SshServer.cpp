#include "SshServer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

#include <csignal>
#include <cstdio>
#include <pwd.h>
#include <unistd.h>

namespace {
bool run(const QString& program, const QStringList& args, QString& why) {
    QProcess p;
    p.start(program, args);
    if (p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) return true;
    why = program + " " + args.join(' ') + ": " + QString::fromLocal8Bit(p.readAllStandardError());
    return false;
}

bool write(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

int freePort() {
    QTcpServer probe;
    return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
}

// The parent pid and the command name of a process, from /proc.
bool statOf(pid_t pid, pid_t& parent, QByteArray& name) {
    const QByteArray stat = read(QStringLiteral("/proc/%1/stat").arg(pid));
    const qsizetype open = stat.indexOf('('), close = stat.lastIndexOf(')');
    if (open < 0 || close < 0) return false;
    name = stat.mid(open + 1, close - open - 1);
    parent = stat.mid(close + 4).split(' ').value(0).toInt(); // ") S PPID"
    return true;
}
} // namespace

SshServer::~SshServer() {
    if (sshd_.state() != QProcess::NotRunning) {
        dropConnections();
        sshd_.terminate();
        sshd_.waitForFinished(5000);
    }
}

QString SshServer::nssWrapperPath() {
    for (const QString& dir : QDir("/usr/lib").entryList({"*-linux-gnu*"}, QDir::Dirs))
        if (QFile::exists("/usr/lib/" + dir + "/libnss_wrapper.so"))
            return "/usr/lib/" + dir + "/libnss_wrapper.so";
    return QFile::exists("/usr/lib/libnss_wrapper.so") ? QStringLiteral("/usr/lib/libnss_wrapper.so")
                                                       : QString();
}

// /etc/passwd with the user's own entry naming DIR/login-shell as its shell.
bool SshServer::writePasswd() {
    const passwd* pw = ::getpwuid(::geteuid());
    if (!pw) return false;
    QByteArray text;
    for (const QByteArray& line : read("/etc/passwd").split('\n'))
        if (!line.isEmpty() && !line.startsWith(QByteArray(pw->pw_name) + ':')) text += line + '\n';
    text += QStringLiteral("%1:x:%2:%3::%4:%5/login-shell\n")
                .arg(QString::fromLocal8Bit(pw->pw_name))
                .arg(pw->pw_uid)
                .arg(pw->pw_gid)
                .arg(home(), dir())
                .toLocal8Bit();
    return write(dir() + "/passwd", text) && setLoginShell(QString::fromLocal8Bit(pw->pw_shell));
}

bool SshServer::setLoginShell(const QString& program) {
    if (!switchable_) return false;
    const QString link = dir() + "/login-shell", next = link + ".next";
    QFile::remove(next);
    return QFile::link(program, next) && ::rename(QFile::encodeName(next), QFile::encodeName(link)) == 0;
}

bool SshServer::setLoginScript(const QString& script) {
    static int n = 0;
    const QString path = dir() + QStringLiteral("/host-%1").arg(++n);
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write("#!/bin/sh\n" + script.toUtf8()) > 0 &&
           (f.close(), true) && f.setPermissions(QFile::ReadOwner | QFile::ExeOwner) && setLoginShell(path);
}

bool SshServer::setLoggingShell() {
    QFile::remove(dir() + "/login-commands");
    return setLoginScript("printf '%s\\0' \"$2\" >>'" + dir() + "/login-commands'\nexec /bin/sh -c \"$2\"\n");
}

QList<QByteArray> SshServer::loginCommands() const {
    QList<QByteArray> commands = read(dir() + "/login-commands").split('\0');
    commands.removeLast(); // after the last NUL
    return commands;
}

QString SshServer::sshdPath() {
    for (const char* path : {"/usr/sbin/sshd", "/usr/local/sbin/sshd"})
        if (QFile::exists(path)) return path;
    return QStandardPaths::findExecutable(QStringLiteral("sshd"));
}

bool SshServer::writeConfigs(int port, const QMap<QString, QString>& environment, QString& why) {
    const QString d = dir();
    const QByteArray hostKey = read(d + "/host_key.pub").split(' ').mid(0, 2).join(' ');
    const QByteArray otherKey = read(d + "/other_host_key.pub").split(' ').mid(0, 2).join(' ');
    const QByteArray where = QStringLiteral("[127.0.0.1]:%1 ").arg(port).toUtf8();
    const passwd* pw = ::getpwuid(::geteuid());
    const QString user = pw ? QString::fromLocal8Bit(pw->pw_name) : QStringLiteral("root");
    QString accept; // "AcceptEnv" alone is an error in sshd_config
    for (auto it = environment.begin(); it != environment.end(); ++it) accept += ' ' + it.key();
    if (!accept.isEmpty()) accept = "AcceptEnv" + accept + '\n';
    const QString sshd =
        QStringLiteral(
            "Port %1\nListenAddress 127.0.0.1\nHostKey %2/host_key\nPidFile none\nAuthorizedKeysFile "
            "%2/authorized_keys\n"
            "StrictModes no\nUsePAM no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nAllowStreamLocalForwarding yes\n%3LogLevel ERROR\n")
            .arg(port)
            .arg(d, accept);
    const auto host = [&](const QString& name, const QString& key, const QString& knownHosts) {
        return QStringLiteral(
                   "Host %1\n  HostName 127.0.0.1\n  Port %2\n  User %3\n  IdentityFile %4/%5\n"
                   "  IdentitiesOnly yes\n  IdentityAgent none\n  UserKnownHostsFile %4/%6\n"
                   "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
                   "  LogLevel ERROR\n")
            .arg(name)
            .arg(port)
            .arg(user, d, key, knownHosts);
    };
    QString client = host("vstest", "user_key", "known_hosts");
    if (!environment.isEmpty()) client += "  SetEnv"; // one line: ssh takes the first SetEnv only
    for (auto it = environment.begin(); it != environment.end(); ++it)
        client += QStringLiteral(" %1=%2").arg(it.key(), it.value());
    if (!environment.isEmpty()) client += '\n';
    client += host("vstest-stranger", "stranger_key", "known_hosts") +
              host("vstest-newkey", "user_key", "other_known_hosts");
    if (write(d + "/sshd_config", sshd.toUtf8()) && write(d + "/ssh_config", client.toUtf8()) &&
        write(d + "/known_hosts", where + hostKey + '\n') &&
        write(d + "/other_known_hosts", where + otherKey + '\n') &&
        QFile::copy(d + "/user_key.pub", d + "/authorized_keys"))
        return true;
    why = "cannot write the configuration in " + d;
    return false;
}

bool SshServer::start(const QMap<QString, QString>& environment, QString& why, bool switchableShell) {
    dir_ = std::make_unique<QTemporaryDir>(); // 0700
    if (!dir_->isValid()) return why = "no temporary directory", false;
    if ((switchable_ = switchableShell)) {
        if (nssWrapperPath().isEmpty()) return why = "libnss-wrapper is not installed", false;
        if (!QDir().mkpath(home()) || !writePasswd())
            return why = "cannot write the passwd file in " + dir(), false;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("LD_PRELOAD", nssWrapperPath());
        env.insert("NSS_WRAPPER_PASSWD", dir() + "/passwd");
        env.insert("NSS_WRAPPER_GROUP", "/etc/group");
        sshd_.setProcessEnvironment(env);
    }
    for (const char* key : {"host_key", "other_host_key", "user_key", "stranger_key"})
        if (!run("ssh-keygen",
                 {"-q", "-t", "ed25519", "-N", "", "-C", "vramscope-test", "-f", dir() + "/" + key}, why))
            return false;
    // sshd's privilege separation directory, made by Debian's service when it starts (not here).
    if (::geteuid() == 0 && !QFileInfo::exists("/run/sshd")) QDir().mkpath("/run/sshd");
    for (int attempt = 0; attempt < 5; ++attempt) { // a free port may be taken before sshd binds it
        const int port = freePort();
        QFile::remove(dir() + "/authorized_keys");
        if (!port || !writeConfigs(port, environment, why)) return false;
        sshd_.setProcessChannelMode(QProcess::MergedChannels);
        sshd_.start(sshdPath(), {"-f", dir() + "/sshd_config", "-D", "-e"});
        QElapsedTimer waited;
        waited.start();
        while (sshd_.state() != QProcess::NotRunning && waited.elapsed() < 20000) {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, quint16(port));
            if (probe.waitForConnected(1000)) return true;
            QThread::msleep(50);
        }
        log_ += sshd_.readAll();
        sshd_.kill(), sshd_.waitForFinished();
    }
    why = "sshd did not start: " + QString::fromLocal8Bit(log_);
    return false;
}

QString SshServer::sshCommand() const {
    return "ssh -F " + dir() + "/ssh_config";
}

QByteArray SshServer::log() {
    return log_ += sshd_.readAll();
}

int SshServer::dropConnections() {
    const pid_t daemon = pid_t(sshd_.processId());
    int killed = 0;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        const pid_t pid = entry.toInt();
        pid_t parent = 0;
        QByteArray name;
        if (pid <= 0 || pid == daemon || !statOf(pid, parent, name) || !name.startsWith("sshd")) continue;
        for (pid_t up = parent; up > 1;) { // a descendant of our daemon
            if (up == daemon) {
                ::kill(pid, SIGKILL), ++killed;
                break;
            }
            QByteArray n;
            if (!statOf(up, up, n)) break;
        }
    }
    return killed;
}
