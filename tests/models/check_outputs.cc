// tare_check_outputs OUT_DIR EXPECTED_DIR [MAX_REL_L2] [--no-argmax]
// Compares every EXPECTED_DIR/<name>.npy (a framework's own outputs) with OUT_DIR/<name>.npy (tare's):
// relative L2 error ||y - e|| / ||e||, max abs error, and per-row argmax over the last axis.
// Exit 0 when every output has rel L2 <= MAX_REL_L2 (default 1e-4) and, unless --no-argmax (outputs
// that are not scores, e.g. hidden states, whose near-ties may flip), the same argmax everywhere.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "format/npy.h"

using namespace tare;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  double limit = 1e-4;
  bool argmax = true;
  int positional = 0;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-argmax") == 0) {
      argmax = false;
    } else if (positional++ == 0) {
      char* end = nullptr;
      limit = std::strtod(argv[i], &end);
      if (end == argv[i] || *end || !(limit > 0)) {
        std::fprintf(stderr, "MAX_REL_L2 must be a positive number, got '%s'\n", argv[i]);
        return 2;
      }
    } else {
      positional = 2;
    }
  }
  if (argc < 3 || positional > 1) {
    std::fprintf(stderr, "usage: %s OUT_DIR EXPECTED_DIR [MAX_REL_L2] [--no-argmax]\n", argv[0]);
    return 2;
  }
  int checked = 0, failed = 0;
  std::error_code ec;
  fs::directory_iterator it(argv[2], ec);
  if (ec) {
    std::fprintf(stderr, "cannot read %s: %s\n", argv[2], ec.message().c_str());
    return 1;
  }
  for (const auto& entry : it) {
    if (entry.path().extension() != ".npy") continue;
    const std::string name = entry.path().filename().string();
    Result<Tensor> e = ReadNpy(entry.path().string());
    Result<Tensor> y = ReadNpy((fs::path(argv[1]) / name).string());
    ++checked;
    if (!e.ok() || !y.ok()) {
      std::printf("%-24s FAIL %s\n", name.c_str(), (!e.ok() ? e.status() : y.status()).message().c_str());
      ++failed;
      continue;
    }
    if (e->shape != y->shape) {
      std::printf("%-24s FAIL shape %s, expected %s\n", name.c_str(), ShapeStr(y->shape).c_str(), ShapeStr(e->shape).c_str());
      ++failed;
      continue;
    }
    double num = 0, den = 0, max_abs = 0;
    const int64_t n = e->numel();
    for (int64_t i = 0; i < n; ++i) {
      double d = ReadDouble(*y, i) - ReadDouble(*e, i);
      num += d * d;
      den += ReadDouble(*e, i) * ReadDouble(*e, i);
      max_abs = std::fmax(max_abs, std::fabs(d));
    }
    const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    const int64_t row = e->shape.empty() ? 1 : e->shape.back();
    int64_t flips = 0, rows = row > 0 ? n / row : 0;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t ae = 0, ay = 0;
      for (int64_t k = 1; k < row; ++k) {
        if (ReadDouble(*e, r * row + k) > ReadDouble(*e, r * row + ae)) ae = k;
        if (ReadDouble(*y, r * row + k) > ReadDouble(*y, r * row + ay)) ay = k;
      }
      flips += ae != ay;
    }
    const bool ok = rel <= limit && (!argmax || flips == 0) && std::isfinite(rel);
    failed += !ok;
    std::printf("%-24s %s rel_l2 %.3e  max_abs %.3e  argmax %lld/%lld equal\n", name.c_str(), ok ? "PASS" : "FAIL", rel,
                max_abs, static_cast<long long>(rows - flips), static_cast<long long>(rows));
  }
  if (checked == 0) {
    std::printf("no expected outputs in %s\n", argv[2]);
    return 1;
  }
  return failed ? 1 : 0;
}
