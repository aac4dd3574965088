/* tare's C API (C99): load a .tare model, run it, read its outputs. docs/EMBEDDING.md has complete
 * examples, the lifetime and threading rules and how to build against the installed package.
 *
 * Stable ABI: every type is an opaque handle or a plain enum, nothing whose layout can change is
 * passed by value, every name is tare_- or TARE_-prefixed, and libtare.so exports nothing else.
 * No C++ exception, abort or exit crosses this boundary: every failure returns a tare_status and
 * leaves a one-line message (the same text the `tare` CLI prints) for tare_last_error().
 *
 * Lifetimes: a model may be shared by any number of sessions and freed before them (a session
 * keeps what it needs). Tensors made by tare_tensor_create view the caller's memory; a session's
 * output and trace tensors belong to the session and stay valid until its next run or its free.
 * Threads: see tare_session_run. */
#ifndef TARE_TARE_H_
#define TARE_TARE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TARE_API __attribute__((visibility("default")))
#else
#define TARE_API
#endif

/** Version of this header's API; tare_api_version() returns the library's. */
#define TARE_API_VERSION 1

/** Outcome of every call. The values are fixed. */
typedef enum tare_status {
  TARE_OK = 0,
  TARE_ERROR_INVALID_ARGUMENT = 1, /**< NULL handle or pointer, bad option, unknown input name, wrong dtype, short buffer */
  TARE_ERROR_BAD_MODEL = 2,        /**< malformed or corrupt model file or graph */
  TARE_ERROR_UNSUPPORTED = 3,      /**< an op, dtype or file kind this build does not handle */
  TARE_ERROR_SHAPE = 4,            /**< an input shape the model does not accept, or shape inference failing on it */
  TARE_ERROR_LIMIT_EXCEEDED = 5,   /**< a tensor or arena over the session's limits, out of memory */
  TARE_ERROR_IO = 6,               /**< a file that cannot be opened, mapped, read or written */
  TARE_ERROR_INTERNAL = 7,         /**< a bug in tare (please report it with the message) */
  TARE_ERROR_RUNTIME = 8,          /**< a kernel failed on the inputs' values (e.g. an index out of range) */
  /* Not values: they make every int a valid tare_status, so a caller's unknown code is answered
   * ("TARE_ERROR_UNKNOWN", INVALID_ARGUMENT), never undefined. The same in the enums below. */
  TARE_STATUS_RANGE_MIN_ = -2147483647 - 1,
  TARE_STATUS_RANGE_MAX_ = 2147483647
} tare_status;

/** Element types; the codes are ONNX's TensorProto.DataType. String tensors are not readable
 * through this API (TARE_ERROR_UNSUPPORTED). */
typedef enum tare_dtype {
  TARE_DTYPE_UNDEFINED = 0,
  TARE_DTYPE_FLOAT32 = 1,
  TARE_DTYPE_UINT8 = 2,
  TARE_DTYPE_INT8 = 3,
  TARE_DTYPE_UINT16 = 4,
  TARE_DTYPE_INT16 = 5,
  TARE_DTYPE_INT32 = 6,
  TARE_DTYPE_INT64 = 7,
  TARE_DTYPE_STRING = 8,
  TARE_DTYPE_BOOL = 9, /**< one byte, 0 or 1 */
  TARE_DTYPE_FLOAT16 = 10,
  TARE_DTYPE_FLOAT64 = 11,
  TARE_DTYPE_UINT32 = 12,
  TARE_DTYPE_UINT64 = 13,
  TARE_DTYPE_BFLOAT16 = 16,
  TARE_DTYPE_RANGE_MIN_ = -2147483647 - 1, /* not values (see tare_status) */
  TARE_DTYPE_RANGE_MAX_ = 2147483647
} tare_dtype;

/** Which side of a model tare_model_io describes. */
typedef enum tare_io {
  TARE_INPUT = 0,
  TARE_OUTPUT = 1,
  TARE_IO_RANGE_MIN_ = -2147483647 - 1, /* not values (see tare_status) */
  TARE_IO_RANGE_MAX_ = 2147483647
} tare_io;

typedef struct tare_model tare_model;     /**< a loaded model (graph and weights); immutable */
typedef struct tare_options tare_options; /**< session options (backends, threads, limits, tracing) */
typedef struct tare_session tare_session; /**< a model prepared for one backend list; runs it */
typedef struct tare_tensor tare_tensor;   /**< a dtype, a shape and a data pointer */

/* ---- library ------------------------------------------------------------------------------ */

/** The library's version, "MAJOR.MINOR.PATCH" (static storage). */
TARE_API const char* tare_version(void);
/** The library's TARE_API_VERSION. */
TARE_API int tare_api_version(void);
/** The message of the last call on this thread that failed ("" when none has); valid until this
 * thread's next failing call. Successful calls leave it unchanged. */
TARE_API const char* tare_last_error(void);
/** "TARE_OK", "TARE_ERROR_SHAPE", ...; "TARE_ERROR_UNKNOWN" for other values (static storage). */
TARE_API const char* tare_status_name(tare_status status);
/** Bytes per element of `dtype`; 0 for UNDEFINED, STRING and unknown codes. */
TARE_API size_t tare_dtype_size(tare_dtype dtype);
/** The backends built into this library, comma-separated, e.g. "ref64,ref,cpu,onednn" (static storage). */
TARE_API const char* tare_backends(void);

/* ---- models ------------------------------------------------------------------------------- */

/** Loads a model. A .tare file is mapped and verified (checksum, structure), its weights used in
 * place. A .onnx or .tflite file is converted in memory when the converter library
 * (libtare_converters, CMake tare::converters) is linked into the program, and refused with
 * TARE_ERROR_UNSUPPORTED otherwise. Errors: INVALID_ARGUMENT (NULL path or out), IO (cannot open
 * or map), BAD_MODEL (not a valid model: the reason and the file are in the message),
 * UNSUPPORTED, and the converter's errors. */
TARE_API tare_status tare_model_load(const char* path, tare_model** out);
/** Loads a .tare model from the caller's memory, which is NOT copied: the weights are used in
 * place, so `data` must be 64-byte aligned and stay valid and unchanged until the model and every
 * session made from it are freed. Errors: INVALID_ARGUMENT (NULL, misaligned), BAD_MODEL
 * (truncated or corrupt bytes: the checksum covers all of them). */
TARE_API tare_status tare_model_load_buffer(const void* data, size_t bytes, tare_model** out);
/** Frees the handle (sessions made from the model keep its graph alive). NULL is a no-op. */
TARE_API void tare_model_free(tare_model* model);
/** Number of graph inputs or outputs. Errors: INVALID_ARGUMENT (NULL model or count). */
TARE_API tare_status tare_model_io_count(const tare_model* model, tare_io io, size_t* count);
/** Describes input or output `index`: its name, dtype and shape (rank -1 when unknown; a dynamic
 * dim is -1). Any of the out pointers may be NULL; `name` and `dims` point into the model and live
 * as long as it does. Errors: INVALID_ARGUMENT (NULL model, index out of range). */
TARE_API tare_status tare_model_io(const tare_model* model, tare_io io, size_t index, const char** name, tare_dtype* dtype,
                                   const int64_t** dims, int64_t* rank);

/* ---- options ------------------------------------------------------------------------------ */

/** New options with the defaults: backends "ref", 1 thread, tensors up to 4 GiB, the arena up to
 * 16 GiB, no tracing. Errors: INVALID_ARGUMENT (NULL out). */
TARE_API tare_status tare_options_create(tare_options** out);
/** Frees the options (sessions made with them keep a copy). NULL is a no-op. */
TARE_API void tare_options_free(tare_options* options);
/** Backend priority list, comma-separated ("cpu,ref"; spaces around a name are ignored): each
 * node runs on the first that supports it; the reference backend of the same precision takes the
 * rest. Errors: INVALID_ARGUMENT (an empty list, an empty or repeated name, a backend that is
 * unknown or not built in: the message lists the available ones; ref64 mixed with another). */
TARE_API tare_status tare_options_set_backends(tare_options* options, const char* backends);
/** Threads of the fast backends (1 to 1024). Errors: INVALID_ARGUMENT. */
TARE_API tare_status tare_options_set_threads(tare_options* options, int threads);
/** Largest single tensor a session may allocate, in bytes (> 0). Errors: INVALID_ARGUMENT. */
TARE_API tare_status tare_options_set_max_tensor_bytes(tare_options* options, uint64_t bytes);
/** Largest arena (all run-time values) a session may allocate, in bytes (> 0). Errors: INVALID_ARGUMENT. */
TARE_API tare_status tare_options_set_max_arena_bytes(tare_options* options, uint64_t bytes);
/** Keeps the value named `value` (a source tensor name) after each run, readable with
 * tare_session_trace; "*" keeps the output of every node. Tracing changes no result. Errors:
 * INVALID_ARGUMENT (NULL or empty name); an unknown name fails tare_session_create. */
TARE_API tare_status tare_options_add_trace(tare_options* options, const char* value);

/* ---- tensors ------------------------------------------------------------------------------ */

/** A tensor viewing the caller's memory (not copied; it must outlive the tensor's use in a run).
 * `dims` (copied) has `rank` entries (0 to 64), each >= 0; `bytes` must be exactly the elements
 * times tare_dtype_size(dtype), and `data` aligned to the element size. Errors: INVALID_ARGUMENT
 * (NULL out, NULL data with bytes > 0, an unknown or STRING dtype, a negative dim, a rank over
 * 64, misaligned data, `bytes` not matching the shape: "expected N bytes, got M"),
 * LIMIT_EXCEEDED (more than 2^40 elements). */
TARE_API tare_status tare_tensor_create(tare_dtype dtype, const int64_t* dims, size_t rank, const void* data, size_t bytes,
                                        tare_tensor** out);
/** Frees a tensor made by tare_tensor_create (not the memory it views). A session's tensors are
 * freed with the session; passing one here is a no-op. NULL is a no-op. */
TARE_API void tare_tensor_free(tare_tensor* tensor);
/** The tensor's dtype, shape (dims live as long as the tensor) and data. Any out pointer may be
 * NULL. Errors: INVALID_ARGUMENT (NULL tensor). */
TARE_API tare_status tare_tensor_info(const tare_tensor* tensor, tare_dtype* dtype, const int64_t** dims, size_t* rank,
                                      const void** data, size_t* bytes);

/* ---- sessions ----------------------------------------------------------------------------- */

/** Prepares `model` to run with `options` (NULL: the defaults): chooses a backend per node and
 * checks every node's attributes. The session keeps the model's graph and weights alive (for a
 * model from tare_model_load_buffer, the caller's buffer must still outlive the session).
 * Errors: INVALID_ARGUMENT (NULL model or out, an unknown traced name), UNSUPPORTED (ops no
 * chosen backend runs: all of them listed, with node names), BAD_MODEL (invalid attributes). */
TARE_API tare_status tare_session_create(const tare_model* model, const tare_options* options, tare_session** out);
/** Frees the session and its output and trace tensors. NULL is a no-op. */
TARE_API void tare_session_free(tare_session* session);
/** Runs the model on `n_inputs` tensors bound to the graph inputs `names[i]` (each input exactly
 * once, its dtype and a shape its declared dims accept). Outputs are then readable with
 * tare_session_output until the next run. The first run, and any run with new input shapes,
 * plans (shape inference, folding, arena) before running.
 * Threads: different sessions may run on different threads at once, also sessions of one shared
 * model. One session runs one call at a time: a run that finds the session already running on
 * another thread returns INVALID_ARGUMENT at once (it does not wait); a thread reading a
 * session's outputs must not overlap another thread's run of that session.
 * Errors: INVALID_ARGUMENT (NULL session, NULL names or inputs with n_inputs > 0, an unknown,
 * missing or repeated input, a wrong dtype, a concurrent run), SHAPE (a shape the model does not
 * accept, with the expected and given shapes), LIMIT_EXCEEDED (a tensor or the arena over the
 * session limits), RUNTIME (a kernel failing on the values, naming the node). After a failed run
 * no output is readable. */
TARE_API tare_status tare_session_run(tare_session* session, const char* const* names, const tare_tensor* const* inputs,
                                      size_t n_inputs);
/** Number of outputs of the session's model. Errors: INVALID_ARGUMENT (NULL session or count). */
TARE_API tare_status tare_session_output_count(const tare_session* session, size_t* count);
/** Output `index` of the last run, in graph order: its name and a tensor owned by the session
 * (valid until the next run or the free). Float outputs are float32, or float64 on ref64. Either
 * out pointer may be NULL. Errors: INVALID_ARGUMENT (NULL session, index out of range, no
 * successful run yet), UNSUPPORTED (an output that is not a plain numeric tensor: a string tensor,
 * a sequence, an optional). */
TARE_API tare_status tare_session_output(const tare_session* session, size_t index, const char** name, const tare_tensor** tensor);
/** Copies output `index` of the last run into the caller's `dst` of `bytes` bytes (at least the
 * output's size; tare_tensor_info gives it). Errors: those of tare_session_output, and
 * INVALID_ARGUMENT for a NULL dst or a dst too small ("needs N bytes, got M"). */
TARE_API tare_status tare_session_output_copy(const tare_session* session, size_t index, void* dst, size_t bytes);
/** Number of traced values of the last run (tare_options_add_trace); 0 before the first run.
 * Errors: INVALID_ARGUMENT (NULL session or count). */
TARE_API tare_status tare_session_trace_count(const tare_session* session, size_t* count);
/** Traced value `index` of the last run, in graph order: its source tensor name, the node that
 * produced it (empty for graph inputs), its op, and a tensor owned by the session (valid until
 * the next run). Any out pointer may be NULL. Errors: INVALID_ARGUMENT (NULL session, index out
 * of range), UNSUPPORTED (a value that is not a plain numeric tensor). */
TARE_API tare_status tare_session_trace(const tare_session* session, size_t index, const char** value, const char** node,
                                        const char** op, const tare_tensor** tensor);
/** Bytes of the session's arena for the current plan (0 before the first run). Errors: INVALID_ARGUMENT. */
TARE_API tare_status tare_session_arena_bytes(const tare_session* session, uint64_t* bytes);

/* ---- converters (libtare_converters) ------------------------------------------------------ */

/** Converts an ONNX (.onnx) or TFLite (.tflite) model to a .tare file, as `tare convert` does.
 * Defined in the converter library (link libtare_converters, CMake tare::converters, pkg-config
 * tare-converters). `dst` must end in .tare and may not be `src`; it is replaced. Errors:
 * INVALID_ARGUMENT (NULL, a bad dst name), IO (cannot read src or write dst), BAD_MODEL,
 * UNSUPPORTED (every unsupported op listed, with node names). */
TARE_API tare_status tare_convert(const char* src, const char* dst);

/* How the converter library plugs into libtare (it calls these itself; an application need not). */
/** A converter: converts the file at `path` into a .tare image in a malloc'd buffer (`*data`,
 * `*bytes`; the caller frees it) or returns an error with a malloc'd message in `*error`. */
typedef tare_status (*tare_converter_fn)(const char* path, void** data, size_t* bytes, char** error);
/** Makes tare_model_load use `convert` for .onnx and .tflite files (NULL: refuse them again). */
TARE_API void tare_set_converter(tare_converter_fn convert);
/** Sets this thread's tare_last_error() message (a library layered on tare reports through it). */
TARE_API void tare_set_last_error(const char* message);

#ifdef __cplusplus
}
#endif

#endif /* TARE_TARE_H_ */
