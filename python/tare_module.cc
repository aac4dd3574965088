// The Python module `tare` (pybind11): convert models, run them in sessions, compare them, over
// tare's C++ layers (runtime/session.h, format/, converters/load_any.h, compare/; not the C API).
// Every failure raises tare.Error(code, message); no C++ exception escapes, nothing aborts.
// Inputs are used in place (C-contiguous, aligned numpy arrays of the input's dtype); outputs are
// numpy arrays over the memory of the tensors the session returns, which they keep alive.
#include <pybind11/eval.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "compare/attribution.h"
#include "compare/layers.h"
#include "compare/report.h"
#include "converters/load_any.h"
#include "format/model_file.h"
#include "runtime/session.h"

namespace py = pybind11;
namespace fs = std::filesystem;
using namespace tare;

namespace {

// ---- errors ------------------------------------------------------------------------------------

// A failure to raise as tare.Error(code, message) (the exception translator below).
struct PyTareError {
  std::string code;
  std::string message;
};

// tare.Error, created at import and kept for the life of the process (never freed: the
// interpreter may outlive any static destructor order).
PyObject* g_error_type = nullptr;

// The code string of `c`; `unspecified` for StatusCode::kUnspecified (the caller's context).
const char* CodeName(StatusCode c, const char* unspecified) {
  switch (c) {
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kBadModel: return "bad_model";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kShape: return "shape";
    case StatusCode::kLimit: return "limit_exceeded";
    case StatusCode::kIO: return "io";
    case StatusCode::kInternal: return "internal";
    default: return unspecified;
  }
}

// The message as one line, as the CLI prints it (cli/main.cc Fail): control characters replaced.
std::string OneLine(std::string msg) {
  for (char& c : msg)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = c == '\n' ? ' ' : '?';
  return msg;
}

[[noreturn]] void Throw(const char* code, const std::string& msg) { throw PyTareError{code, OneLine(msg)}; }

// Raises `st` (when it failed) with its code, or `context` when its code is unspecified.
void Check(const Status& st, const char* context) {
  if (!st.ok()) Throw(CodeName(st.code(), context), st.message());
}

template <class T>
T Take(Result<T> r, const char* context) {
  if (!r.ok()) Check(r.status(), context);
  return std::move(r).value();
}

// A Python str from bytes that may not be UTF-8 (names from model files): bad bytes become U+FFFD.
py::str Str(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// Sets the pending Python exception to tare.Error(code, message).
void SetError(const std::string& code, const std::string& message) {
  py::object e = py::reinterpret_borrow<py::object>(g_error_type)(Str(code), Str(message));
  PyErr_SetObject(g_error_type, e.ptr());
}

// Every C++ exception a call lets out becomes tare.Error; Python's own exceptions pass through.
void TranslateException(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const PyTareError& e) {
    SetError(e.code, e.message);
  } catch (const py::error_already_set&) {
    throw;
  } catch (const py::cast_error& e) {
    SetError("invalid_argument", OneLine(e.what()));
  } catch (const py::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    SetError("limit_exceeded", "out of memory");
  } catch (const std::exception& e) {
    SetError("internal", OneLine(e.what()));
  }
}

// ---- arguments ---------------------------------------------------------------------------------

std::string TypeName(py::handle o) { return py::str(py::type::handle_of(o).attr("__name__")); }

// A path: str or os.PathLike (of str).
std::string PathArg(py::handle o, const char* what) {
  if (py::isinstance<py::str>(o)) return o.cast<std::string>();
  if (py::hasattr(o, "__fspath__")) {
    py::object s;
    try {
      s = py::module_::import("os").attr("fspath")(o);
    } catch (py::error_already_set& e) {
      Throw("invalid_argument", std::string(what) + ": " + e.what());
    }
    if (py::isinstance<py::str>(s)) return s.cast<std::string>();
  }
  Throw("invalid_argument", std::string(what) + " must be a path (str or os.PathLike of str), got " + TypeName(o));
}

// A str, or a list or tuple of str (a str may list several names separated by commas).
std::vector<std::string> NamesArg(py::handle o, const char* what, bool split_commas) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (!split_commas) return out.push_back(s);
    size_t start = 0;
    while (true) {
      const size_t comma = s.find(',', start);
      std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const size_t b = part.find_first_not_of(" \t"), e = part.find_last_not_of(" \t");
      out.push_back(b == std::string::npos ? std::string() : part.substr(b, e - b + 1));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  };
  if (py::isinstance<py::str>(o)) {
    add(o.cast<std::string>());
  } else if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
    for (py::handle item : o) {
      if (!py::isinstance<py::str>(item)) Throw("invalid_argument", std::string(what) + " must hold str, got " + TypeName(item));
      add(item.cast<std::string>());
    }
  } else {
    Throw("invalid_argument", std::string(what) + " must be a str or a list of str, got " + TypeName(o));
  }
  return out;
}

// Backend names from a comma-separated str or a list; each must be built into this module.
std::vector<std::string> BackendsArg(py::handle o) {
  std::vector<std::string> names = NamesArg(o, "backends", true);
  if (names.empty()) Throw("invalid_argument", "backends is empty");
  const std::vector<std::string> avail = AvailableBackends();
  std::string list;
  for (const std::string& a : avail) list += (list.empty() ? "" : ", ") + a;
  for (const std::string& n : names) {
    bool known = false;
    for (const std::string& a : avail) known = known || a == n;
    if (!known) Throw("invalid_argument", "unknown backend '" + n + "' (available: " + list + ")");
  }
  return names;
}

// An int (not a bool) within [lo, hi].
int64_t IntArg(py::handle o, const char* what, int64_t lo, int64_t hi) {
  if (!py::isinstance<py::int_>(o) || py::isinstance<py::bool_>(o))
    Throw("invalid_argument", std::string(what) + " must be an int, got " + TypeName(o));
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow || v < lo || v > hi)
    Throw("invalid_argument", std::string(what) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

// ---- dtypes and tensors ------------------------------------------------------------------------

struct DTypeNumpy {
  DType dtype;
  char kind;  // numpy's dtype.kind
  size_t size;
  const char* name;
};
constexpr DTypeNumpy kDTypes[] = {
    {DType::kFloat32, 'f', 4, "float32"}, {DType::kFloat64, 'f', 8, "float64"}, {DType::kFloat16, 'f', 2, "float16"},
    {DType::kInt8, 'i', 1, "int8"},       {DType::kInt16, 'i', 2, "int16"},     {DType::kInt32, 'i', 4, "int32"},
    {DType::kInt64, 'i', 8, "int64"},     {DType::kUInt8, 'u', 1, "uint8"},     {DType::kUInt16, 'u', 2, "uint16"},
    {DType::kUInt32, 'u', 4, "uint32"},   {DType::kUInt64, 'u', 8, "uint64"},   {DType::kBool, 'b', 1, "bool"},
};

// The numpy dtype of a tare dtype: object for strings; None for bfloat16 (numpy has none) and
// undefined.
py::object NumpyDType(DType t) {
  if (t == DType::kString) return py::dtype::from_args(py::str("O"));
  for (const DTypeNumpy& d : kDTypes)
    if (d.dtype == t) return py::dtype::from_args(py::str(d.name));
  return py::none();
}

py::object ToPython(const Tensor& t);

// A numpy array over `t`'s memory (kept alive by a capsule holding its owner); strings are copied
// into an object array, bfloat16 converted to float32 (exactly).
py::object ArrayOf(const Tensor& t) {
  if (t.dtype == DType::kBFloat16) return ArrayOf(Take(ConvertTensor(t, DType::kFloat32), "internal"));
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  const int64_t n = Take(NumElements(t.shape), "internal");
  if (t.dtype == DType::kString) {
    py::list flat;
    for (int64_t i = 0; i < n; ++i) flat.append(Str(t.as<std::string>()[i]));
    py::array a = py::array(py::module_::import("numpy").attr("array")(flat, py::arg("dtype") = NumpyDType(t.dtype)));
    return a.attr("reshape")(py::tuple(py::cast(shape)));
  }
  py::object dt = NumpyDType(t.dtype);
  if (dt.is_none()) Throw("unsupported", "a tensor of type " + DTypeName(t.dtype) + " has no numpy dtype");
  if (n == 0 || !t.data) return py::array(py::reinterpret_borrow<py::dtype>(dt), shape);
  if (!t.owner) return ArrayOf(Take(ConvertTensor(t, t.dtype), "internal"));  // borrowed memory: own a copy
  auto* keep = new std::shared_ptr<void>(t.owner);
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
  return py::array(py::reinterpret_borrow<py::dtype>(dt), shape, t.data, base);
}

// A value as Python: an array, a list for a sequence, None or the value for an optional.
py::object ToPython(const Tensor& t) {
  if (t.kind == ValueKind::kSequence) {
    py::list l;
    if (t.items)
      for (const Tensor& item : *t.items) l.append(ToPython(item));
    return std::move(l);
  }
  if (t.kind == ValueKind::kOptional) return !t.items || t.items->empty() ? py::none() : ToPython((*t.items)[0]);
  return ArrayOf(t);
}

// A string tensor from a numpy array of str, bytes or objects that are str (copied).
Tensor StringTensor(const py::array& a, const std::string& name) {
  Shape shape(a.shape(), a.shape() + a.ndim());
  Tensor t = Take(Tensor::Alloc(DType::kString, shape), "invalid_argument");
  int64_t i = 0;
  for (py::handle item : a.attr("ravel")().attr("tolist")()) {
    if (py::isinstance<py::bytes>(item)) t.as<std::string>()[i++] = item.cast<std::string>();
    else if (py::isinstance<py::str>(item)) t.as<std::string>()[i++] = item.cast<std::string>();
    else Throw("invalid_argument", "input '" + name + "': a string array must hold str or bytes, got " + TypeName(item));
  }
  return t;
}

// A tensor viewing `obj`'s buffer (a numpy array; C-contiguous and aligned, else a C-contiguous
// copy of it, same dtype), the array kept in `*keep` for as long as the tensor is used.
Tensor FromArray(py::handle obj, const std::string& name, std::vector<py::object>* keep) {
  py::object np = py::module_::import("numpy");
  if (!py::isinstance<py::array>(obj)) {
    if (!py::isinstance(obj, np.attr("generic")))
      Throw("invalid_argument", "input '" + name + "' must be a numpy array, got " + TypeName(obj));
    obj = keep->emplace_back(np.attr("asarray")(obj));
  }
  py::array a = py::reinterpret_borrow<py::array>(obj);
  const py::dtype dt = a.dtype();
  if (dt.kind() == 'U' || dt.kind() == 'S' || dt.kind() == 'O') return StringTensor(a, name);
  const DTypeNumpy* m = nullptr;
  for (const DTypeNumpy& d : kDTypes)
    if (d.kind == dt.kind() && d.size == static_cast<size_t>(dt.itemsize())) m = &d;
  if (!m)
    Throw("invalid_argument", "input '" + name + "' has numpy dtype " + dt.attr("name").cast<std::string>() + ", which tare has no type for");
  if (!dt.attr("isnative").cast<bool>())
    Throw("invalid_argument", "input '" + name + "' (dtype " + dt.attr("str").cast<std::string>() + ") is not in this machine's byte order");
  const int need = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((a.flags() & need) != need) a = py::reinterpret_borrow<py::array>(a.attr("copy")("C"));
  keep->push_back(a);
  Shape shape(a.shape(), a.shape() + a.ndim());
  return Tensor::View(m->dtype, std::move(shape), const_cast<void*>(a.data()));
}

// The value fed to input `val` (named `name`): an array; for a sequence input a list or tuple of
// arrays; for an optional input None or its value.
Tensor FeedValue(py::handle obj, const std::string& name, const Value* val, std::vector<py::object>* keep) {
  const ValueKind kind = val ? val->kind : ValueKind::kTensor;
  const DType elem = val ? val->dtype : DType::kUndefined;
  if (kind == ValueKind::kOptional) {
    if (obj.is_none()) return Tensor::Optional(elem, nullptr);
    Value inner;
    inner.kind = val->optional_of_sequence ? ValueKind::kSequence : ValueKind::kTensor;
    inner.dtype = elem;
    const Tensor t = FeedValue(obj, name, &inner, keep);
    return Tensor::Optional(elem, &t);
  }
  if (kind == ValueKind::kSequence) {
    if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
      Throw("invalid_argument", "input '" + name + "' is a sequence: give a list of numpy arrays, got " + TypeName(obj));
    std::vector<Tensor> items;
    for (py::handle item : obj) items.push_back(FromArray(item, name, keep));
    return Tensor::Sequence(elem != DType::kUndefined || items.empty() ? elem : items[0].dtype, std::move(items));
  }
  return FromArray(obj, name, keep);
}

// Binds `feeds` ({name: array}) to the inputs of `g` by name; unknown names are passed on for the
// session to report.
std::vector<NamedTensor> BindFeeds(const Graph& g, py::handle feeds, std::vector<py::object>* keep) {
  if (!py::isinstance<py::dict>(feeds))
    Throw("invalid_argument", "the inputs must be a dict {name: numpy array}, got " + TypeName(feeds));
  std::vector<NamedTensor> out;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(feeds)) {
    if (!py::isinstance<py::str>(k)) Throw("invalid_argument", "input names must be str, got " + TypeName(k));
    const std::string name = k.cast<std::string>();
    const Value* val = nullptr;
    for (int id : g.inputs)
      if (g.values[static_cast<size_t>(id)].name == name) val = &g.values[static_cast<size_t>(id)];
    out.push_back({name, FeedValue(v, name, val, keep)});
  }
  return out;
}

// ---- models ------------------------------------------------------------------------------------

// A .tare file loaded (LoadModel), any other model converted in memory (LoadAnyModel).
std::shared_ptr<Model> LoadPath(const std::string& path) {
  Result<std::shared_ptr<Model>> m = Status::Error("not loaded");
  {
    py::gil_scoped_release nogil;
    const bool tare_file = path.size() >= 5 && path.compare(path.size() - 5, 5, ".tare") == 0;
    m = tare_file ? LoadModel(path) : LoadAnyModel(path);
  }
  return Take(std::move(m), "bad_model");
}

void Convert(py::object src_obj, py::object dst_obj) {
  const std::string src = PathArg(src_obj, "src"), dst = PathArg(dst_obj, "dst");
  std::error_code ec;
  if (dst.size() < 5 || dst.compare(dst.size() - 5, 5, ".tare") != 0)
    Throw("invalid_argument", "the output file must end in .tare, got '" + dst + "'");
  if (fs::exists(dst, ec) && fs::equivalent(src, dst, ec)) Throw("invalid_argument", "refusing to overwrite the input '" + src + "'");
  if (fs::is_directory(dst, ec)) Throw("io", "'" + dst + "' is a directory");
  const fs::path parent = fs::absolute(dst, ec).parent_path();
  if (!fs::is_directory(parent, ec)) Throw("io", "'" + dst + "': directory '" + parent.string() + "' does not exist");
  std::shared_ptr<Model> m = LoadPath(src);
  Status st;
  {
    py::gil_scoped_release nogil;
    st = SaveModel(*m, dst);
  }
  Check(st, "io");
}

// ---- Session -----------------------------------------------------------------------------------

// tare.TensorInfo: a graph input's or output's declared name, dtype and shape.
struct TensorInfo {
  std::string name;
  py::object dtype;  // numpy dtype, or None
  py::object shape;  // tuple (None for unknown dims), or None for an unknown rank
  std::string kind;  // "tensor", "sequence", "optional"
};

TensorInfo InfoOf(const Value& v) {
  TensorInfo info{v.name, NumpyDType(v.dtype), py::none(), ValueKindName(v.kind)};
  if (v.has_shape) {
    py::list dims;
    for (int64_t d : v.shape) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
    info.shape = py::tuple(dims);
  }
  return info;
}

std::string InfoRepr(const TensorInfo& i) {
  std::string r = "TensorInfo(name=" + std::string(py::repr(Str(i.name))) + ", dtype=" + std::string(py::str(i.dtype)) +
                  ", shape=" + std::string(py::repr(i.shape));
  if (i.kind != "tensor") r += ", kind='" + i.kind + "'";
  return r + ")";
}

class PySession {
 public:
  PySession(py::object model, py::object backends, py::object threads, py::object max_tensor_bytes, py::object max_arena_bytes,
            py::object trace) {
    SessionOptions o;
    o.backends = BackendsArg(backends);
    o.threads = static_cast<int>(IntArg(threads, "threads", 1, 1024));
    if (!max_tensor_bytes.is_none()) o.max_tensor_bytes = static_cast<size_t>(IntArg(max_tensor_bytes, "max_tensor_bytes", 1, INT64_MAX));
    if (!max_arena_bytes.is_none()) o.max_arena_bytes = static_cast<size_t>(IntArg(max_arena_bytes, "max_arena_bytes", 1, INT64_MAX));
    if (py::isinstance<py::str>(trace) && trace.cast<std::string>() == "*") o.trace_all = true;
    else if (!trace.is_none()) o.trace = NamesArg(trace, "trace", false);
    tracing_ = o.trace_all || !o.trace.empty();
    model_ = LoadPath(PathArg(model, "model"));
    Result<std::unique_ptr<Session>> s = Status::Error("not created");
    {
      py::gil_scoped_release nogil;
      s = Session::Create(std::shared_ptr<const Graph>(model_, &model_->graph), o);
    }
    session_ = Take(std::move(s), "bad_model");
  }

  std::vector<TensorInfo> Infos(bool inputs) const {
    const Graph& g = session_->graph();
    std::vector<TensorInfo> out;
    for (int id : inputs ? g.inputs : g.outputs) out.push_back(InfoOf(g.values[static_cast<size_t>(id)]));
    return out;
  }

  py::dict Run(py::object feeds) {
    std::vector<py::object> keep;  // the arrays the inputs view, alive until the run returns
    const std::vector<NamedTensor> in = BindFeeds(session_->graph(), feeds, &keep);
    std::vector<NamedTensor> out;
    Status st;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mu_);
      st = session_->Run(in, &out);
    }
    Check(st, "runtime");
    py::dict d;
    for (const NamedTensor& o : out) d[Str(o.name)] = ToPython(o.tensor);
    return d;
  }

  py::list Trace() {
    if (!tracing_) Throw("invalid_argument", "tracing was not asked for: create the Session with trace=[names] or trace=\"*\"");
    std::vector<TraceEntry> entries;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mu_);
      entries = session_->Trace();
    }
    py::list out;
    for (const TraceEntry& e : entries) {
      py::dict d;
      d["value"] = Str(e.value);
      d["node"] = Str(e.node);
      d["op"] = Str(e.op);
      d["array"] = ToPython(e.tensor);
      out.append(d);
    }
    return out;
  }

  py::list Placement() {
    std::vector<std::pair<std::string, std::string>> p;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> lock(mu_);
      p = session_->Placement();
    }
    py::list out;
    for (const auto& [node, backend] : p) out.append(py::make_tuple(Str(node), Str(backend)));
    return out;
  }

  size_t ArenaBytes() {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(mu_);
    return session_->arena_bytes();
  }

 private:
  std::shared_ptr<Model> model_;
  std::unique_ptr<Session> session_;
  std::mutex mu_;  // one Run (or read of its results) at a time: the GIL is released during Run
  bool tracing_ = false;
};

// ---- compare -----------------------------------------------------------------------------------

// The frameworks of `expects`: a list of (model_index, label, dir), or {label: dir} for one model.
std::vector<std::pair<size_t, Framework>> ExpectsArg(py::handle expects, size_t n_models) {
  std::vector<std::pair<size_t, Framework>> out;
  if (expects.is_none()) return out;
  if (py::isinstance<py::dict>(expects)) {
    if (n_models != 1) Throw("invalid_argument", "expects as a dict {label: dir} needs one model; give (model_index, label, dir) tuples");
    for (auto [label, dir] : py::reinterpret_borrow<py::dict>(expects)) {
      if (!py::isinstance<py::str>(label)) Throw("invalid_argument", "expects labels must be str, got " + TypeName(label));
      out.push_back({0, Framework{label.cast<std::string>(), PathArg(dir, "expects dir"), {}}});
    }
    return out;
  }
  if (!py::isinstance<py::list>(expects) && !py::isinstance<py::tuple>(expects))
    Throw("invalid_argument", "expects must be a list of (model_index, label, dir) or a dict {label: dir}, got " + TypeName(expects));
  for (py::handle e : expects) {
    if (!(py::isinstance<py::list>(e) || py::isinstance<py::tuple>(e)) || py::len(e) != 3)
      Throw("invalid_argument", "each of expects must be (model_index, label, dir), got " + std::string(py::repr(e)));
    py::sequence t = py::reinterpret_borrow<py::sequence>(e);
    const py::object index = t[0], label = t[1], dir = t[2];
    const int64_t mi = IntArg(index, "expects model_index", 0, static_cast<int64_t>(n_models) - 1);
    if (!py::isinstance<py::str>(label)) Throw("invalid_argument", "expects labels must be str, got " + TypeName(label));
    out.push_back({static_cast<size_t>(mi), Framework{label.cast<std::string>(), PathArg(dir, "expects dir"), {}}});
  }
  return out;
}

py::object Compare(py::object models_obj, py::object inputs, py::object backends_obj, py::object expects, py::object threshold_obj,
                   bool layers) {
  std::vector<std::string> paths;
  if (py::isinstance<py::list>(models_obj) || py::isinstance<py::tuple>(models_obj)) {
    for (py::handle m : models_obj) paths.push_back(PathArg(m, "models"));
  } else {
    paths.push_back(PathArg(models_obj, "models"));
  }
  const std::vector<std::string> backends = BackendsArg(backends_obj);
  if (!py::isinstance<py::float_>(threshold_obj) && !py::isinstance<py::int_>(threshold_obj))
    Throw("invalid_argument", "threshold must be a number, got " + TypeName(threshold_obj));
  const double threshold = threshold_obj.cast<double>();
  Check(CheckCompareOptions(paths.size(), backends, threshold), "invalid_argument");
  const std::vector<std::string> labels = ModelLabels(paths);
  std::vector<std::vector<Framework>> fws = Take(AssignFrameworks(labels, backends, ExpectsArg(expects, paths.size())), "invalid_argument");
  std::vector<std::shared_ptr<Model>> models;
  std::vector<std::vector<NamedTensor>> bound;
  std::vector<py::object> keep;
  for (size_t mi = 0; mi < paths.size(); ++mi) {
    models.push_back(LoadPath(paths[mi]));
    try {
      bound.push_back(BindFeeds(models.back()->graph, inputs, &keep));
    } catch (const PyTareError& e) {
      Throw(e.code.c_str(), labels[mi] + ": " + e.message);
    }
  }
  Status st;
  std::string dump;
  {
    py::gil_scoped_release nogil;
    std::vector<ModelRuns> all;
    size_t traced_bytes = 0;
    for (size_t mi = 0; mi < paths.size() && st.ok(); ++mi) {
      Result<ModelRuns> mr = RunForComparison(models[mi], labels[mi], bound[mi], backends, std::move(fws[mi]), &traced_bytes, layers);
      if (mr.ok()) all.push_back(std::move(mr).value());
      else st = mr.status();
    }
    std::vector<ModelSummary> summaries(all.size());
    for (size_t mi = 0; mi < all.size() && st.ok(); ++mi) st = SummarizeModel(&all[mi], &summaries[mi]);
    if (st.ok()) {
      nlohmann::json report = CompareReport(threshold, summaries, JudgeAll(all, summaries, threshold));
      for (size_t mi = 0; layers && mi < all.size(); ++mi) {
        nlohmann::json& jm = report["models"][mi];
        jm["layers"] = nlohmann::json::array();
        jm["bisections"] = nlohmann::json::array();
        for (const BackendLayers& l : ModelLayers(all[mi], summaries[mi].quantized, true)) jm["layers"].push_back(LayersJson(l));
      }
      dump = report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  Check(st, "runtime");
  return py::module_::import("json").attr("loads")(Str(dump));
}

// ---- docstrings --------------------------------------------------------------------------------

constexpr const char* kModuleDoc = R"(tare: a small, portable inference runtime that is a controlled baseline for deep
learning frameworks (convert each framework's export into one model format, run it on
well-specified kernels, say why two frameworks disagree).

  tare.convert(src, dst)              ONNX / TFLite -> .tare
  tare.Session(model, backends=...)   run a model: session.run({name: array}) -> {name: array}
  tare.compare(models, inputs, ...)   the report of `tare compare --json` as a dict
  tare.backends()                     the backends built into this module
Every failure raises tare.Error (attributes code and message).)";

constexpr const char* kErrorDoc = R"(Every failure of tare: a subclass of Exception with
  code     the kind of failure, a str: "invalid_argument" (a bad argument: an unknown input name,
           a wrong dtype, an unknown backend), "bad_model" (a malformed or corrupt model file or
           graph), "unsupported" (an op or feature this build does not run), "shape" (an input
           shape that does not match the model, or shape inference failing on it),
           "limit_exceeded" (a tensor or arena over a limit; out of memory), "io" (a file that
           cannot be opened, read or written), "internal" (a bug in tare), "runtime" (a kernel
           failing during a run)
  message  one line naming the object at fault, as tare's CLI prints it (str(e) is the same))";

constexpr const char* kConvertDoc = R"(convert(src, dst) -> None

Converts the model file `src` (.onnx, .tflite; a .tare is copied through the loader) to the
.tare file `dst` (created or replaced), as `tare convert` does. Paths are str or os.PathLike.
Raises tare.Error: "invalid_argument" when dst does not end in .tare or is src; "io" when dst
is a directory or its directory does not exist (checked before converting), or on read/write
failures; "bad_model" or "unsupported" when src cannot be converted.)";

constexpr const char* kSessionDoc = R"(Session(model, backends="cpu,ref", threads=1, max_tensor_bytes=None,
        max_arena_bytes=None, trace=None)

Prepares a model for running. `model`: a path (str or os.PathLike); a .tare file is mapped and
verified, an .onnx or .tflite file is converted in memory. `backends`: a comma-separated str or a
list of names in priority order (each node runs on the first that supports it; the reference
backend of the same precision takes the rest; see tare.backends()). `threads`: 1..1024.
`max_tensor_bytes`, `max_arena_bytes`: limits in bytes (None: 4 GiB and 16 GiB). `trace`: a list
of tensor names, or "*" for every node's output, kept after each run (Session.trace()).
Not for concurrent use from several threads (calls are serialized).
Raises tare.Error: "invalid_argument" (unknown backend: the message lists the available ones;
bad argument types or ranges; a traced name the model does not have), "io" (the file cannot be
opened), "bad_model" (a corrupt or invalid model), "unsupported" (ops no backend runs).)";

constexpr const char* kRunDoc = R"(run(feeds) -> dict

Runs the model. `feeds`: a dict {input name: numpy array}, every graph input exactly once, with
its declared dtype (no conversion is made: a float64 array for a float32 input is an error) and a
shape of its declared rank whose known dims match. C-contiguous, aligned arrays are used in place
(not copied); others are copied to a C-contiguous array of the same dtype. A sequence input takes
a list of arrays, an optional input None or its value; string inputs take str/bytes/object arrays.
Returns {output name: numpy array} in the graph's output order; the arrays own the memory the
session returned (no copy). float32 outputs are float32, except on ref64 (first backend), whose
float outputs are float64; bfloat16 outputs come back as float32 (exact); string outputs as object
arrays; sequences as lists, optionals as None or their value. The GIL is released while running.
Raises tare.Error: "invalid_argument" (a missing, unknown or duplicate input; a wrong dtype, e.g.
"input 'x' must be float32, got float64"; feeds not a dict of arrays), "shape" (a wrong shape,
or shape inference failing on it), "limit_exceeded" (over the session's limits), "runtime"
(a data-dependent kernel failure).)";

constexpr const char* kTraceDoc = R"(trace() -> list of dict

The values asked for with `trace` as computed by the last run, in graph order: dicts {value: the
tensor's name, node: the producing node's name, op: its op type, array: the numpy array (float
values are float64 on ref64)}. Empty before the first run; values no output depends on are not
listed. Raises tare.Error "invalid_argument" when the Session was created without `trace`.)";

constexpr const char* kPlacementDoc = R"(placement() -> list of (node, backend)

Which backend runs each node, in graph order: after a run, nodes folded at plan time report
"folded" and nodes no output depends on "unused"; before the first run, the backend each node was
given when the session was created.)";

constexpr const char* kCompareDoc = R"(compare(models, inputs, backends=("ref64", "ref"), expects=None, threshold=1e-9, layers=False) -> dict

Runs `tare compare` in single-input mode and returns its JSON report (as `--json` writes it; the
schema of docs/COMPARE.md, schema_version 1) as a dict: {schema_version, kind: "single-input",
threshold_rel_l2, models: [{file, runs, frameworks, kernel_noise_floor_rel_l2, quantized}], pairs:
[{a, b, kind, verdict, ...}]}. With `layers`, every backend's run is traced too and each model gets
`layers` (per backend after ref64: every node's chained distance from ref64 and its isolated error
as a ratio of its op's budget) and `bisections` (empty: bisection is the CLI's `--bisect`). Verdicts: "same function", "models differ at NODE_A /
NODE_B", "models differ", "framework computing difference".
`models`: a path or a list of paths (.tare, .onnx, .tflite); labels are their file names (the
paths when two file names are the same). `inputs`: a dict {input name: numpy array} bound to every
model (as Session.run takes them). `backends`: a comma-separated str or list starting with
"ref64", no name twice. `expects`: frameworks' own outputs, a list of
(model_index, label, dir) or, for one model, a dict {label: dir}; each dir holds
<output name>.npy per output (characters outside [A-Za-z0-9._-] as '_'). `threshold`: the
relative L2 within which two models compute the same function (finite, >= 0).
The GIL is released while the models run.
Raises tare.Error: "invalid_argument" (bad options or labels, unknown inputs), "io", "bad_model",
"unsupported" (loading), "shape", "runtime" (the runs, prefixed "LABEL on BACKEND: "), and the
failures to read an expected output ("--expect LABEL: ...").)";

const char* kErrorClass = R"PY(
class Error(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self):
        return (type(self), (self.code, self.message))

    def __repr__(self):
        return "tare.Error(%r, %r)" % (self.code, self.message)
)PY";

}  // namespace

PYBIND11_MODULE(tare, m) {
  m.doc() = kModuleDoc;
  m.attr("__version__") = TARE_VERSION;
  py::exec(kErrorClass, m.attr("__dict__"));
  m.attr("Error").attr("__doc__") = kErrorDoc;
  g_error_type = m.attr("Error").ptr();
  Py_INCREF(g_error_type);
  py::register_exception_translator(TranslateException);

  m.def("backends", &AvailableBackends, "backends() -> list of str\n\nThe backends built into this module, e.g. ['ref', 'ref64', 'cpu'].");
  m.def("convert", &Convert, py::arg("src"), py::arg("dst"), kConvertDoc);
  m.def("compare", &Compare, py::arg("models"), py::arg("inputs"), py::arg("backends") = py::make_tuple("ref64", "ref"),
        py::arg("expects") = py::none(), py::arg("threshold") = 1e-9, py::arg("layers") = false, kCompareDoc);

  py::class_<TensorInfo>(m, "TensorInfo", "A graph input's or output's declared type: name (str), dtype (numpy dtype; object for "
                                          "strings, None for bfloat16), shape (tuple, None for unknown dims; None for an unknown "
                                          "rank), kind ('tensor', 'sequence' or 'optional').")
      .def_property_readonly("name", [](const TensorInfo& i) { return Str(i.name); })
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def_readonly("kind", &TensorInfo::kind)
      .def("__repr__", &InfoRepr);

  py::class_<PySession>(m, "Session", kSessionDoc)
      .def(py::init<py::object, py::object, py::object, py::object, py::object, py::object>(), py::arg("model"),
           py::arg("backends") = "cpu,ref", py::arg("threads") = 1, py::arg("max_tensor_bytes") = py::none(),
           py::arg("max_arena_bytes") = py::none(), py::arg("trace") = py::none())
      .def_property_readonly("inputs", [](const PySession& s) { return s.Infos(true); },
                             "list of TensorInfo: the graph inputs in order")
      .def_property_readonly("outputs", [](const PySession& s) { return s.Infos(false); },
                             "list of TensorInfo: the graph outputs in order (declared dtypes: float outputs are float64 on ref64)")
      .def("run", &PySession::Run, py::arg("feeds"), kRunDoc)
      .def("trace", &PySession::Trace, kTraceDoc)
      .def("placement", &PySession::Placement, kPlacementDoc)
      .def_property_readonly("arena_bytes", &PySession::ArenaBytes,
                             "int: arena bytes of the current plan, the peak memory for run-time values (0 before the first run)");
}
