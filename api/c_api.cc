// The C API (include/tare/tare.h) over the runtime: models (format/model_file.h), sessions
// (runtime/session.h), tensors as views. Every entry point catches everything: no exception
// crosses the boundary, a failure sets the thread's last error and returns its code.
#include "include/tare/tare.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "api/c_status.h"
#include "format/model_file.h"
#include "runtime/session.h"

using namespace tare;

struct tare_model {
  std::shared_ptr<Model> model;
};

struct tare_options {
  SessionOptions options;
};

struct tare_tensor {
  Tensor tensor;
  bool session_owned = false;
};

struct tare_session {
  std::unique_ptr<Session> session;
  bool tracing = false;
  std::mutex running;  // try_lock only: a second concurrent run fails instead of waiting
  bool have_outputs = false;
  std::vector<NamedTensor> outputs;
  std::vector<tare_tensor> output_views;
  std::vector<TraceEntry> trace;
  std::vector<tare_tensor> trace_views;
};

namespace {

thread_local std::string t_last_error;
std::atomic<tare_converter_fn> g_converter{nullptr};

constexpr size_t kMaxRank = 64;

tare_status Fail(tare_status code, const std::string& msg) {
  t_last_error = msg;
  return code;
}

tare_status Fail(const Status& s, tare_status fallback) { return Fail(ToTareStatus(s.code(), fallback), s.message()); }

// Runs `body`, turning any exception into a code and a message (GuardCall).
template <class F>
tare_status Guard(F&& body) {
  return GuardCall(body, [](tare_status code, const std::string& msg) { return Fail(code, msg); });
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A plain numeric tensor the C API can hand out (not a string tensor, a sequence or an optional).
bool Readable(const Tensor& t) { return t.is_tensor() && t.dtype != DType::kString && DTypeSize(t.dtype) > 0; }

tare_status NewModel(Result<std::shared_ptr<Model>> m, tare_model** out) {
  if (!m.ok()) return Fail(m.status(), TARE_ERROR_BAD_MODEL);
  *out = new tare_model{std::move(m).value()};
  return TARE_OK;
}

tare_status LoadConverted(const std::string& path, tare_model** out) {
  const tare_converter_fn convert = g_converter.load();
  if (!convert) {
    const char* kind = EndsWith(path, ".onnx") ? "an ONNX" : "a TFLite";
    return Fail(TARE_ERROR_UNSUPPORTED, "'" + path + "' is " + kind +
                                            " model: link the converter library (libtare_converters, CMake tare::converters) "
                                            "to load it directly, or convert it to .tare first (tare_convert, `tare convert`)");
  }
  void* data = nullptr;
  size_t bytes = 0;
  char* error = nullptr;
  const tare_status st = convert(path.c_str(), &data, &bytes, &error);
  if (st != TARE_OK) {
    const std::string msg = error ? error : "conversion failed";
    std::free(error);
    std::free(data);
    return Fail(st, msg);
  }
  std::unique_ptr<void, void (*)(void*)> hold(data, std::free);
  return NewModel(LoadModelFromBytes(static_cast<const uint8_t*>(data), bytes), out);
}

// tare_options_set_max_tensor_bytes / _arena_bytes: sets `field` (bytes > 0, capped at SIZE_MAX).
tare_status SetLimit(tare_options* options, uint64_t bytes, const std::string& name, size_t SessionOptions::*field) {
  return Guard([&] {
    if (!options) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_set_" + name + ": options must not be NULL");
    if (bytes == 0) return Fail(TARE_ERROR_INVALID_ARGUMENT, name + " must be > 0");
    options->options.*field = static_cast<size_t>(std::min<uint64_t>(bytes, SIZE_MAX));
    return TARE_OK;
  });
}

const std::vector<int>& IoIds(const Graph& g, tare_io io) { return io == TARE_OUTPUT ? g.outputs : g.inputs; }

tare_status ViewOf(const Tensor& t, tare_tensor* view) {
  view->tensor = t;
  view->session_owned = true;
  return TARE_OK;
}

}  // namespace

extern "C" {

const char* tare_version(void) { return TARE_VERSION; }
int tare_api_version(void) { return TARE_API_VERSION; }
const char* tare_last_error(void) { return t_last_error.c_str(); }

const char* tare_status_name(tare_status status) {
  switch (status) {
    case TARE_OK: return "TARE_OK";
    case TARE_ERROR_INVALID_ARGUMENT: return "TARE_ERROR_INVALID_ARGUMENT";
    case TARE_ERROR_BAD_MODEL: return "TARE_ERROR_BAD_MODEL";
    case TARE_ERROR_UNSUPPORTED: return "TARE_ERROR_UNSUPPORTED";
    case TARE_ERROR_SHAPE: return "TARE_ERROR_SHAPE";
    case TARE_ERROR_LIMIT_EXCEEDED: return "TARE_ERROR_LIMIT_EXCEEDED";
    case TARE_ERROR_IO: return "TARE_ERROR_IO";
    case TARE_ERROR_INTERNAL: return "TARE_ERROR_INTERNAL";
    case TARE_ERROR_RUNTIME: return "TARE_ERROR_RUNTIME";
    default: break;
  }
  return "TARE_ERROR_UNKNOWN";
}

size_t tare_dtype_size(tare_dtype dtype) {
  const int32_t code = static_cast<int32_t>(dtype);
  if (!DTypeIsValid(code)) return 0;
  return DTypeSize(static_cast<DType>(code));
}

const char* tare_backends(void) {
  static const std::string names = [] {
    std::string s;
    for (const std::string& b : AvailableBackends()) s += (s.empty() ? "" : ",") + b;
    return s;
  }();
  return names.c_str();
}

tare_status tare_model_load(const char* path, tare_model** out) {
  return Guard([&] {
    if (!path || !out) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_load: path and out must not be NULL");
    *out = nullptr;
    const std::string p = path;
    if (EndsWith(p, ".onnx") || EndsWith(p, ".tflite")) return LoadConverted(p, out);
    return NewModel(LoadModel(p), out);
  });
}

tare_status tare_model_load_buffer(const void* data, size_t bytes, tare_model** out) {
  return Guard([&] {
    if (!data || !out) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_load_buffer: data and out must not be NULL");
    *out = nullptr;
    return NewModel(LoadModelFromMemory(static_cast<const uint8_t*>(data), bytes), out);
  });
}

void tare_model_free(tare_model* model) { delete model; }

tare_status tare_model_io_count(const tare_model* model, tare_io io, size_t* count) {
  return Guard([&] {
    if (!model || !count) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_io_count: model and count must not be NULL");
    if (io != TARE_INPUT && io != TARE_OUTPUT) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_io_count: io must be TARE_INPUT or TARE_OUTPUT");
    *count = IoIds(model->model->graph, io).size();
    return TARE_OK;
  });
}

tare_status tare_model_io(const tare_model* model, tare_io io, size_t index, const char** name, tare_dtype* dtype,
                          const int64_t** dims, int64_t* rank) {
  return Guard([&] {
    if (!model) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_io: model must not be NULL");
    if (io != TARE_INPUT && io != TARE_OUTPUT) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_model_io: io must be TARE_INPUT or TARE_OUTPUT");
    const Graph& g = model->model->graph;
    const std::vector<int>& ids = IoIds(g, io);
    if (index >= ids.size())
      return Fail(TARE_ERROR_INVALID_ARGUMENT, std::string("tare_model_io: the model has ") + std::to_string(ids.size()) +
                                                   (io == TARE_INPUT ? " inputs" : " outputs") + ", index " +
                                                   std::to_string(index) + " is out of range");
    const Value& v = g.values[static_cast<size_t>(ids[index])];
    if (name) *name = v.name.c_str();
    if (dtype) *dtype = static_cast<tare_dtype>(static_cast<int32_t>(v.dtype));
    if (dims) *dims = v.has_shape ? v.shape.data() : nullptr;
    if (rank) *rank = v.has_shape ? static_cast<int64_t>(v.shape.size()) : -1;
    return TARE_OK;
  });
}

tare_status tare_options_create(tare_options** out) {
  return Guard([&] {
    if (!out) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_create: out must not be NULL");
    *out = new tare_options{};
    return TARE_OK;
  });
}

void tare_options_free(tare_options* options) { delete options; }

tare_status tare_options_set_backends(tare_options* options, const char* backends) {
  return Guard([&] {
    if (!options || !backends) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_set_backends: options and backends must not be NULL");
    std::vector<std::string> names;
    const std::string list = backends;
    size_t p = 0;
    while (true) {
      const size_t q = list.find(',', p);
      const std::string part = list.substr(p, q == std::string::npos ? std::string::npos : q - p);
      const size_t b = part.find_first_not_of(" \t"), e = part.find_last_not_of(" \t");  // "cpu, ref" as the Python module
      names.push_back(b == std::string::npos ? std::string() : part.substr(b, e - b + 1));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    const std::vector<std::string> avail = AvailableBackends();
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) return Fail(TARE_ERROR_INVALID_ARGUMENT, "backend list '" + list + "' has an empty name");
      if (std::find(avail.begin(), avail.end(), names[i]) == avail.end())
        return Fail(TARE_ERROR_INVALID_ARGUMENT, (names[i] == "vulkan" ? "backend '" + names[i] + "' is not built into this library"
                                                                        : "unknown backend '" + names[i] + "'") +
                                                     " (available: " + tare_backends() + ")");
      if (std::find(names.begin(), names.begin() + static_cast<long>(i), names[i]) != names.begin() + static_cast<long>(i))
        return Fail(TARE_ERROR_INVALID_ARGUMENT, "backend list '" + list + "' names '" + names[i] + "' twice");
      if ((names[i] == "ref64") != (names[0] == "ref64"))
        return Fail(TARE_ERROR_INVALID_ARGUMENT, "backend '" + names[i] + "' cannot be mixed with '" + names[0] + "' (different precision)");
    }
    options->options.backends = names;
    return TARE_OK;
  });
}

tare_status tare_options_set_threads(tare_options* options, int threads) {
  return Guard([&] {
    if (!options) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_set_threads: options must not be NULL");
    if (threads < 1 || threads > 1024)
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "threads must be 1 to 1024, got " + std::to_string(threads));
    options->options.threads = threads;
    return TARE_OK;
  });
}

tare_status tare_options_set_max_tensor_bytes(tare_options* options, uint64_t bytes) {
  return SetLimit(options, bytes, "max_tensor_bytes", &SessionOptions::max_tensor_bytes);
}

tare_status tare_options_set_max_arena_bytes(tare_options* options, uint64_t bytes) {
  return SetLimit(options, bytes, "max_arena_bytes", &SessionOptions::max_arena_bytes);
}

tare_status tare_options_add_trace(tare_options* options, const char* value) {
  return Guard([&] {
    if (!options || !value) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_add_trace: options and value must not be NULL");
    const std::string v = value;
    if (v.empty()) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_options_add_trace: the value name is empty");
    if (v == "*") {
      options->options.trace_all = true;
    } else {
      options->options.trace.push_back(v);
    }
    return TARE_OK;
  });
}

tare_status tare_tensor_create(tare_dtype dtype, const int64_t* dims, size_t rank, const void* data, size_t bytes,
                               tare_tensor** out) {
  return Guard([&] {
    if (!out) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: out must not be NULL");
    *out = nullptr;
    const int32_t code = static_cast<int32_t>(dtype);
    if (!DTypeIsValid(code) || dtype == TARE_DTYPE_STRING)
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: dtype " + std::to_string(code) + " is not a numeric tare_dtype");
    if (rank > kMaxRank) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: rank " + std::to_string(rank) + " is over 64");
    if (rank > 0 && !dims) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: dims is NULL with rank " + std::to_string(rank));
    Shape shape(dims, dims + rank);
    for (size_t k = 0; k < rank; ++k)
      if (shape[k] < 0)
        return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: dim " + std::to_string(k) + " is " + std::to_string(shape[k]) +
                                                     " (dims must be >= 0)");
    Result<int64_t> n = NumElements(shape);
    if (!n.ok()) return Fail(TARE_ERROR_LIMIT_EXCEEDED, "tare_tensor_create: " + n.status().message());
    const DType dt = static_cast<DType>(code);
    const uint64_t need = static_cast<uint64_t>(*n) * DTypeSize(dt);  // 64 bits: a 32-bit size_t would wrap
    if (need > SIZE_MAX)
      return Fail(TARE_ERROR_LIMIT_EXCEEDED, "tare_tensor_create: a " + DTypeName(dt) + " tensor of shape " + ShapeStr(shape) +
                                                 " takes " + std::to_string(need) + " bytes, more than this platform can address");
    if (bytes != need)
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: a " + DTypeName(dt) + " tensor of shape " + ShapeStr(shape) +
                                                   " takes " + std::to_string(need) + " bytes, got " + std::to_string(bytes));
    if (need > 0 && !data) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: data is NULL");
    if (reinterpret_cast<uintptr_t>(data) % DTypeSize(dt) != 0)
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_create: data is not aligned to its " + std::to_string(DTypeSize(dt)) +
                                                   "-byte elements");
    auto* t = new tare_tensor;
    t->tensor = Tensor::View(dt, std::move(shape), const_cast<void*>(data));
    *out = t;
    return TARE_OK;
  });
}

void tare_tensor_free(tare_tensor* tensor) {
  if (tensor && !tensor->session_owned) delete tensor;
}

tare_status tare_tensor_info(const tare_tensor* tensor, tare_dtype* dtype, const int64_t** dims, size_t* rank, const void** data,
                             size_t* bytes) {
  return Guard([&] {
    if (!tensor) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_tensor_info: tensor must not be NULL");
    const Tensor& t = tensor->tensor;
    if (dtype) *dtype = static_cast<tare_dtype>(static_cast<int32_t>(t.dtype));
    if (dims) *dims = t.shape.data();
    if (rank) *rank = t.shape.size();
    if (data) *data = t.data;
    if (bytes) *bytes = t.nbytes();
    return TARE_OK;
  });
}

tare_status tare_session_create(const tare_model* model, const tare_options* options, tare_session** out) {
  return Guard([&] {
    if (!model || !out) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_create: model and out must not be NULL");
    *out = nullptr;
    const SessionOptions opts = options ? options->options : SessionOptions{};
    // The session shares the model's ownership through its graph (an aliasing pointer).
    std::shared_ptr<const Graph> graph(model->model, &model->model->graph);
    Result<std::unique_ptr<Session>> s = Session::Create(graph, opts);
    if (!s.ok()) return Fail(s.status(), TARE_ERROR_BAD_MODEL);
    auto* session = new tare_session;
    session->session = std::move(s).value();
    session->tracing = opts.trace_all || !opts.trace.empty();
    *out = session;
    return TARE_OK;
  });
}

void tare_session_free(tare_session* session) { delete session; }

tare_status tare_session_run(tare_session* session, const char* const* names, const tare_tensor* const* inputs, size_t n_inputs) {
  return Guard([&] {
    if (!session) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_run: session must not be NULL");
    if (n_inputs > 0 && (!names || !inputs))
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_run: names and inputs must not be NULL when n_inputs > 0");
    std::unique_lock<std::mutex> lock(session->running, std::try_to_lock);
    if (!lock.owns_lock())
      return Fail(TARE_ERROR_INVALID_ARGUMENT,
                  "tare_session_run: the session is already running on another thread (one run at a time; use one session per thread)");
    // The inputs are taken first: one may be this session's output of the last run (its copy
    // shares the data's ownership, so clearing the outputs below does not free it).
    std::vector<NamedTensor> in(n_inputs);
    for (size_t i = 0; i < n_inputs; ++i) {
      if (!names[i] || !inputs[i])
        return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_run: input " + std::to_string(i) + " has a NULL name or tensor");
      in[i].name = names[i];
      in[i].tensor = inputs[i]->tensor;
    }
    session->have_outputs = false;
    session->output_views.clear();
    session->trace_views.clear();
    const Status st = session->session->Run(in, &session->outputs);
    if (!st.ok()) return Fail(st, TARE_ERROR_RUNTIME);
    session->output_views.resize(session->outputs.size());
    for (size_t i = 0; i < session->outputs.size(); ++i) ViewOf(session->outputs[i].tensor, &session->output_views[i]);
    if (session->tracing) {
      session->trace = session->session->Trace();
      session->trace_views.resize(session->trace.size());
      for (size_t i = 0; i < session->trace.size(); ++i) ViewOf(session->trace[i].tensor, &session->trace_views[i]);
    }
    session->have_outputs = true;
    return TARE_OK;
  });
}

tare_status tare_session_output_count(const tare_session* session, size_t* count) {
  return Guard([&] {
    if (!session || !count) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output_count: session and count must not be NULL");
    *count = session->session->graph().outputs.size();
    return TARE_OK;
  });
}

tare_status tare_session_output(const tare_session* session, size_t index, const char** name, const tare_tensor** tensor) {
  return Guard([&] {
    if (!session) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output: session must not be NULL");
    if (!session->have_outputs) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output: no successful run yet");
    if (index >= session->outputs.size())
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output: the model has " + std::to_string(session->outputs.size()) +
                                                   " outputs, index " + std::to_string(index) + " is out of range");
    const NamedTensor& o = session->outputs[index];
    if (!Readable(o.tensor))
      return Fail(TARE_ERROR_UNSUPPORTED, "output '" + o.name + "' is a " + TypeStr(o.tensor) + ", which the C API does not expose");
    if (name) *name = o.name.c_str();
    if (tensor) *tensor = &session->output_views[index];
    return TARE_OK;
  });
}

tare_status tare_session_output_copy(const tare_session* session, size_t index, void* dst, size_t bytes) {
  if (session && !session->have_outputs) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output_copy: no successful run yet");
  const tare_tensor* t = nullptr;
  const tare_status st = tare_session_output(session, index, nullptr, &t);
  if (st != TARE_OK) return st;
  const size_t need = t->tensor.nbytes();
  if (!dst) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output_copy: dst must not be NULL");
  if (bytes < need)
    return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_output_copy: output '" + session->outputs[index].name + "' needs " +
                                                 std::to_string(need) + " bytes, got " + std::to_string(bytes));
  if (need) std::memcpy(dst, t->tensor.data, need);
  return TARE_OK;
}

tare_status tare_session_trace_count(const tare_session* session, size_t* count) {
  return Guard([&] {
    if (!session || !count) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_trace_count: session and count must not be NULL");
    *count = session->have_outputs ? session->trace.size() : 0;
    return TARE_OK;
  });
}

tare_status tare_session_trace(const tare_session* session, size_t index, const char** value, const char** node, const char** op,
                               const tare_tensor** tensor) {
  return Guard([&] {
    if (!session) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_trace: session must not be NULL");
    const size_t n = session->have_outputs ? session->trace.size() : 0;
    if (index >= n)
      return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_trace: the last run traced " + std::to_string(n) + " values, index " +
                                                   std::to_string(index) + " is out of range");
    const TraceEntry& e = session->trace[index];
    if (!Readable(e.tensor))
      return Fail(TARE_ERROR_UNSUPPORTED, "traced value '" + e.value + "' is a " + TypeStr(e.tensor) + ", which the C API does not expose");
    if (value) *value = e.value.c_str();
    if (node) *node = e.node.c_str();
    if (op) *op = e.op.c_str();
    if (tensor) *tensor = &session->trace_views[index];
    return TARE_OK;
  });
}

tare_status tare_session_arena_bytes(const tare_session* session, uint64_t* bytes) {
  return Guard([&] {
    if (!session || !bytes) return Fail(TARE_ERROR_INVALID_ARGUMENT, "tare_session_arena_bytes: session and bytes must not be NULL");
    *bytes = session->session->arena_bytes();
    return TARE_OK;
  });
}

void tare_set_converter(tare_converter_fn convert) { g_converter.store(convert); }

void tare_set_last_error(const char* message) { t_last_error = message ? message : ""; }

}  // extern "C"
