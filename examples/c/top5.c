/* tare C example: load a model, run it on an .npy input, print the top-5 classes of every row of
 * its first output; with EXPECTED.npy also the relative L2 distance from it (exit status 1 above
 * 1e-4). Build against an installed prefix P:
 *   cc -std=c99 -Wall -Werror top5.c -IP/include -I.. -LP/lib -ltare -Wl,-rpath,P/lib -o top5
 * Usage: top5 [-b BACKENDS] MODEL.tare INPUT.npy [EXPECTED.npy] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tare/tare.h>

#include "npy.h"

/* Prints the failed call's code and message and returns 1 (for `return fail(...)` in main). */
static int fail(const char* what, tare_status st) {
  fprintf(stderr, "%s: %s: %s\n", what, tare_status_name(st), tare_last_error());
  return 1;
}

int main(int argc, char** argv) {
  const char* backends = "cpu,ref";
  int a = 1, rc = 1;
  tare_model* model = NULL;
  tare_options* options = NULL;
  tare_session* session = NULL;
  tare_tensor* input = NULL;
  const tare_tensor* output = NULL;
  const char* in_name = NULL;
  const char* out_name = NULL;
  const int64_t* dims = NULL;
  const float* y = NULL;
  size_t rank = 0, bytes = 0, rows, cols, r;
  tare_dtype dtype;
  tare_status st;
  npy_array x, expected;
  memset(&expected, 0, sizeof expected);
  if (argc > 2 && strcmp(argv[1], "-b") == 0) { backends = argv[2]; a = 3; }
  if (argc - a < 2 || argc - a > 3) {
    fprintf(stderr, "usage: %s [-b BACKENDS] MODEL.tare INPUT.npy [EXPECTED.npy]\n", argv[0]);
    return 2;
  }
  if (npy_read(argv[a + 1], &x) != 0) return 1;
  printf("tare %s, backends %s\n", tare_version(), backends);
  if ((st = tare_model_load(argv[a], &model)) != TARE_OK) { rc = fail("tare_model_load", st); goto done; }
  if ((st = tare_options_create(&options)) != TARE_OK) { rc = fail("tare_options_create", st); goto done; }
  if ((st = tare_options_set_backends(options, backends)) != TARE_OK) { rc = fail("tare_options_set_backends", st); goto done; }
  if ((st = tare_session_create(model, options, &session)) != TARE_OK) { rc = fail("tare_session_create", st); goto done; }
  if ((st = tare_model_io(model, TARE_INPUT, 0, &in_name, NULL, NULL, NULL)) != TARE_OK) { rc = fail("tare_model_io", st); goto done; }
  st = tare_tensor_create(TARE_DTYPE_FLOAT32, x.dims, x.rank, x.data, x.count * sizeof(float), &input);
  if (st != TARE_OK) { rc = fail("tare_tensor_create", st); goto done; }
  {
    const char* names[1];
    const tare_tensor* inputs[1];
    names[0] = in_name;
    inputs[0] = input;
    if ((st = tare_session_run(session, names, inputs, 1)) != TARE_OK) { rc = fail("tare_session_run", st); goto done; }
  }
  if ((st = tare_session_output(session, 0, &out_name, &output)) != TARE_OK) { rc = fail("tare_session_output", st); goto done; }
  if ((st = tare_tensor_info(output, &dtype, &dims, &rank, (const void**)&y, &bytes)) != TARE_OK) {
    rc = fail("tare_tensor_info", st);
    goto done;
  }
  if (dtype != TARE_DTYPE_FLOAT32 || rank < 1) {
    fprintf(stderr, "output '%s' is not a float32 tensor of rank >= 1\n", out_name);
    goto done;
  }
  rows = (size_t)dims[0];
  cols = rows ? bytes / sizeof(float) / rows : 0;
  for (r = 0; r < rows; ++r) {
    int used[5] = {-1, -1, -1, -1, -1};
    int k;
    printf("%s[%zu] top-5:", out_name, r);
    for (k = 0; k < 5 && k < (int)cols; ++k) {
      size_t c, best = 0;
      int found = 0;
      for (c = 0; c < cols; ++c) {
        int j, taken = 0;
        for (j = 0; j < k; ++j) taken |= used[j] == (int)c;
        if (!taken && (!found || y[r * cols + c] > y[r * cols + best])) { best = c; found = 1; }
      }
      used[k] = (int)best;
      printf(" %zu (%.4f)", best, y[r * cols + best]);
    }
    printf("\n");
  }
  rc = 0;
  if (a + 2 < argc) {
    double num = 0, den = 0;
    size_t i;
    if (npy_read(argv[a + 2], &expected) != 0) { rc = 1; goto done; }
    if (expected.count != bytes / sizeof(float)) {
      fprintf(stderr, "expected %zu values, the output has %zu\n", expected.count, bytes / sizeof(float));
      rc = 1;
      goto done;
    }
    for (i = 0; i < expected.count; ++i) {
      num += ((double)y[i] - expected.data[i]) * ((double)y[i] - expected.data[i]);
      den += (double)expected.data[i] * expected.data[i];
    }
    printf("rel L2 vs %s: %.3e\n", argv[a + 2], den > 0 ? sqrt(num / den) : sqrt(num));
    if (!(sqrt(num / (den > 0 ? den : 1)) <= 1e-4)) rc = 1;
  }
done:
  tare_tensor_free(input);
  tare_session_free(session);
  tare_options_free(options);
  tare_model_free(model);
  free(x.data);
  free(expected.data);
  return rc;
}
