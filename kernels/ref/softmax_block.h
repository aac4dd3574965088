// The reference (log-)softmax over the middle axis of a [outer, k, inner] block, shared by
// Softmax/LogSoftmax and SoftmaxCrossEntropyLoss so both compute exactly the same numbers.
// Order: m = max over k (first element, then strictly greater ones); e = exp(x - m) evaluated in
// double and rounded once; sum in T in index order; softmax y = e / sum; log-softmax
// y = (x - m) - log(sum) with log evaluated in double and rounded once.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/ref/ref_kernels.h"

namespace tare {

/// (Log-)softmax of x into y (both [outer, k, inner], row-major; y may not alias x).
template <class T>
void SoftmaxBlock(const T* x, T* y, int64_t outer, int64_t k, int64_t inner, bool log) {
  std::vector<T> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * k * inner;
    T* yo = y + o * k * inner;
    for (int64_t j = 0; j < inner; ++j) mx[j] = xo[j];
    for (int64_t kk = 1; kk < k; ++kk)
      for (int64_t j = 0; j < inner; ++j)
        if (xo[kk * inner + j] > mx[j]) mx[j] = xo[kk * inner + j];
    for (int64_t j = 0; j < inner; ++j) sum[j] = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < inner; ++j) {
        const T d = xo[kk * inner + j] - mx[j];
        const T e = ViaDouble<T>([](double v) { return std::exp(v); }, d);
        sum[j] = sum[j] + e;
        if (!log) yo[kk * inner + j] = e;
      }
    if (log) {
      for (int64_t j = 0; j < inner; ++j) sum[j] = ViaDouble<T>([](double v) { return std::log(v); }, sum[j]);
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < inner; ++j) {
          const T d = xo[kk * inner + j] - mx[j];
          yo[kk * inner + j] = d - sum[j];
        }
    } else {
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < inner; ++j) yo[kk * inner + j] = yo[kk * inner + j] / sum[j];
    }
  }
}

}  // namespace tare
