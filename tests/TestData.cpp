#include "TestData.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>

#include <fstream>
#include <iterator>

namespace vs::test {

QString samplesDir() {
    return QStringLiteral(VRAMSCOPE_SAMPLES_DIR);
}

QStringList sampleNames() {
    QStringList names;
    for (const QString& f : QDir(samplesDir()).entryList({"*.truth.json"}, QDir::Files, QDir::Name))
        names << f.chopped(QStringLiteral(".truth.json").size());
    return names;
}

std::string samplePath(const QString& name) {
    const QStringList hits = QDir(samplesDir()).entryList({name + ".pickle*"}, QDir::Files);
    return hits.isEmpty() ? std::string() : (samplesDir() + '/' + hits.first()).toStdString();
}

QJsonObject sampleTruth(const QString& name) {
    QFile f(samplesDir() + '/' + name + ".truth.json");
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::vector<uint8_t> readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace vs::test
