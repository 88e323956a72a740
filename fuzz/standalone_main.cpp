// Runs the fuzz target without libFuzzer (a g++ build, CI, a machine without clang): each FILE once
// (the corpus as a regression test), then `--random N SEED` generated inputs: structure-aware ones
// (SNP!/REC!/TRC!/ANA!/RNK!/RMT! with random recipes) and byte mutations of the files (flips, cuts, splices).
// `--for SECONDS` stops the random inputs after that long (N may then be 0: no other limit), and
// `--input-timeout SECONDS` ends the process (SIGALRM) when one input runs longer: a hang. Prints the
// executions per mode. A crash or sanitizer report stops it like libFuzzer would; the input that
// caused it is written to ./crash-standalone first (fuzz/run-standalone.sh runs one per core).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

using Bytes = std::vector<uint8_t>;

unsigned inputTimeout = 0; // seconds; 0: none

void run(const Bytes& b) {
    static std::FILE* last = nullptr;
    if (!last) last = std::fopen("crash-standalone", "wb");
    if (last) { // rewritten before each run: after a crash it holds the input that caused it
        std::rewind(last);
        std::fwrite(b.data(), 1, b.size(), last);
        std::fflush(last);
        if (::ftruncate(fileno(last), static_cast<off_t>(b.size())) != 0) std::perror("ftruncate");
    }
    if (inputTimeout) ::alarm(inputTimeout); // SIGALRM's default action ends the process: a hang
    LLVMFuzzerTestOneInput(b.data(), b.size());
    if (inputTimeout) ::alarm(0);
}

Bytes mutate(const Bytes& seed, std::mt19937_64& rng) {
    Bytes b = seed;
    const int edits = 1 + int(rng() % 8);
    for (int e = 0; e < edits && !b.empty(); ++e) {
        const size_t at = rng() % b.size();
        switch (rng() % 4) {
        case 0:
            b[at] ^= uint8_t(1u << (rng() % 8));
            break;
        case 1:
            b[at] = uint8_t(rng());
            break;
        case 2:
            b.resize(at);
            break;
        default:
            b.insert(b.begin() + long(at), b.begin() + long(rng() % b.size()), b.end());
            b.resize(std::min<size_t>(b.size(), 1 << 20));
        }
    }
    return b;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<Bytes> corpus;
    uint64_t randomRuns = 0, seed = 1;
    double seconds = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--for") == 0 && i + 1 < argc) {
            seconds = std::strtod(argv[++i], nullptr);
            if (randomRuns == 0) randomRuns = UINT64_MAX;
            continue;
        }
        if (std::strcmp(argv[i], "--input-timeout") == 0 && i + 1 < argc) {
            inputTimeout = unsigned(std::strtoul(argv[++i], nullptr, 10));
            continue;
        }
        if (std::strcmp(argv[i], "--random") == 0 && i + 2 < argc) {
            randomRuns = std::strtoull(argv[i + 1], nullptr, 10),
            seed = std::strtoull(argv[i + 2], nullptr, 10);
            if (randomRuns == 0 && seconds > 0) randomRuns = UINT64_MAX;
            i += 2;
            continue;
        }
        std::ifstream f(argv[i], std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        run(corpus.back());
    }
    std::printf("corpus: %zu inputs ran\n", corpus.size());
    std::mt19937_64 rng(seed);
    static constexpr const char* kTags[] = {"SNP!", "REC!", "TRC!", "ANA!", "RNK!", "RMT!"};
    constexpr int kRecipes = sizeof kTags / sizeof kTags[0];
    uint64_t counts[kRecipes + 1] = {};
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    for (uint64_t n = 0; n < randomRuns; ++n) {
        if (seconds > 0 && (n & 15) == 0 && elapsed() >= seconds) break;
        const int mode = corpus.empty() ? int(n % kRecipes) : int(n % (kRecipes + 1));
        Bytes b;
        if (mode < kRecipes) {
            b.assign(kTags[mode], kTags[mode] + 4);
            for (size_t k = 0, len = 8 + rng() % 400; k < len; ++k) b.push_back(uint8_t(rng()));
        } else {
            b = mutate(corpus[rng() % corpus.size()], rng);
        }
        run(b);
        ++counts[mode];
    }
    const double s = elapsed();
    std::printf(
        "random: %llu snapshot recipes, %llu record recipes, %llu trace recipes, %llu analysis recipes, "
        "%llu rank summary recipes, %llu remote answers, %llu mutated files in %.1f s\n",
        (unsigned long long)counts[0], (unsigned long long)counts[1], (unsigned long long)counts[2],
        (unsigned long long)counts[3], (unsigned long long)counts[4], (unsigned long long)counts[5],
        (unsigned long long)counts[6], s);
    uint64_t total = corpus.size();
    for (uint64_t c : counts) total += c;
    std::printf("executions: %llu\n", (unsigned long long)total); // what fuzz/run-standalone.sh adds up
    std::remove("crash-standalone");
    return 0;
}
