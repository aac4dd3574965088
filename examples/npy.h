/* A minimal reader of NumPy .npy files for the examples (C99; also compiles as C++): version 1 to
 * 3 headers, little-endian float32 ('<f4') or float64 ('<f8'), C order. Not part of tare's API. */
#ifndef TARE_EXAMPLES_NPY_H_
#define TARE_EXAMPLES_NPY_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct npy_array {
  int64_t dims[8];
  size_t rank;
  size_t count;   /* elements */
  float* data;    /* converted to float32; free() it */
} npy_array;

/* Reads `path` into `out`. Returns 0, or -1 with a message on stderr. */
static int npy_read(const char* path, npy_array* out) {
  FILE* f = fopen(path, "rb");
  unsigned char pre[10];
  char* header = NULL;
  size_t hlen, i, elem;
  int f64;
  const char* p;
  memset(out, 0, sizeof *out);
  if (!f) { fprintf(stderr, "cannot open '%s'\n", path); return -1; }
  if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) goto bad;
  if (pre[6] == 1) {
    if (fread(pre + 8, 1, 2, f) != 2) goto bad;
    hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
  } else {
    unsigned char l[4];
    if (fread(l, 1, 4, f) != 4) goto bad;
    hlen = (size_t)l[0] | ((size_t)l[1] << 8) | ((size_t)l[2] << 16) | ((size_t)l[3] << 24);
  }
  if (hlen > 65536) goto bad;
  header = (char*)calloc(hlen + 1, 1);
  if (!header || fread(header, 1, hlen, f) != hlen) goto bad;
  if (strstr(header, "'fortran_order': True")) goto bad;
  if (strstr(header, "'<f4'")) f64 = 0; else if (strstr(header, "'<f8'")) f64 = 1; else goto bad;
  p = strstr(header, "'shape': (");
  if (!p) goto bad;
  p += 10;
  out->count = 1;
  while (*p && *p != ')') {
    char* end;
    long long d = strtoll(p, &end, 10);
    if (end == p) { ++p; continue; }
    if (d < 0 || out->rank == 8) goto bad;
    out->dims[out->rank++] = d;
    out->count *= (size_t)d;
    p = end;
  }
  elem = f64 ? 8 : 4;
  out->data = (float*)malloc(out->count * sizeof(float) + 1);
  if (!out->data) goto bad;
  for (i = 0; i < out->count; ++i) {
    unsigned char b[8];
    if (fread(b, 1, elem, f) != elem) goto bad;
    if (f64) { double v; memcpy(&v, b, 8); out->data[i] = (float)v; } else memcpy(&out->data[i], b, 4);
  }
  free(header);
  fclose(f);
  return 0;
bad:
  fprintf(stderr, "'%s' is not a little-endian float32/float64 C-order .npy file\n", path);
  free(header);
  free(out->data);
  out->data = NULL;
  fclose(f);
  return -1;
}

#endif /* TARE_EXAMPLES_NPY_H_ */
