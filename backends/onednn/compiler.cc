// The onednn backend's partition compiler (compiler.h) and the Backend itself: claims nodes
// (Supports), compiles partitions node by node (an op whose primitive oneDNN cannot make for the
// concrete shapes runs its reference kernel instead), runs the steps on one in-order CPU stream.
//
// Threads: oneDNN 2.6 from Debian uses OpenMP (libgomp). SessionOptions::threads is passed to
// omp_set_num_threads (looked up with dlsym in the runtime libdnnl loaded) before primitives are
// made (some implementations balance work at creation) and before each Run, on the calling
// thread. The cpu backend uses its own pthreadpool: the two are alternatives in the backend list,
// not meant to share a session (both would spin on the same cores). OMP_WAIT_POLICY is read by libgomp at load time, so it cannot be set from here:
// docs/ONEDNN.md recommends OMP_WAIT_POLICY=passive on machines with few cores.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backends/onednn/compiler.h"
#include "backends/onednn/onednn_backend.h"
#include "kernels/ref/ref_kernels.h"

namespace tare::onednn {
namespace {

/// omp_set_num_threads of the OpenMP runtime oneDNN was built with (libgomp for Debian's
/// libdnnl), looked up at run time so tare needs no OpenMP flags or library of its own (and never
/// mixes two OpenMP runtimes, e.g. clang's libomp with oneDNN's libgomp). No-op when absent.
void SetOmpThreads(int n) {
  using Fn = void (*)(int);
  static const Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (fn) fn(n);
}

}  // namespace

GraphInfo GraphInfo::Of(const Graph& g) {
  GraphInfo info;
  info.known.assign(g.values.size(), 0);
  info.readers.assign(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v) info.known[v] = g.values[v].is_constant;
  for (const Node& n : g.nodes) {
    bool all = true;
    for (int v : n.inputs)
      if (v >= 0) {
        all = all && info.known[v];
        ++info.readers[v];
      }
    const bool shape_only = (n.op == "Shape" || n.op == "Size") && n.domain.empty();
    if (all || shape_only)
      for (int v : n.outputs)
        if (v >= 0) info.known[v] = 1;
  }
  for (int v : g.outputs) ++info.readers[v];
  return info;
}

bool IsF32(const Graph& g, int v) {
  // Converters may leave intermediate dtypes to inference: unknown passes here, and Compile runs
  // the reference for a node whose tensors turn out not to be float32.
  return v >= 0 && (g.values[v].dtype == DType::kFloat32 || g.values[v].dtype == DType::kUndefined);
}

Compiler::Compiler(const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info,
                   const dnnl::engine& eng, dnnl::stream& strm)
    : g_(g), part_(part), slots_(slots), info_(info), eng_(eng), strm_(strm) {
  live_out_.assign(g.values.size(), 0);
  for (int v : part.live_out) live_out_[v] = 1;
  absorbed_.assign(part.nodes.size() + 1, 0);
  rep_.assign(g.values.size(), Rep());
  std::vector<char> produced(g.values.size(), 0);
  for (int ni : part.nodes)
    for (int v : g.nodes[ni].outputs)
      if (v >= 0) produced[v] = 1;
  for (size_t v = 0; v < g.values.size(); ++v) rep_[v].plain = !produced[v];
  produced_ = std::move(produced);
}

bool Compiler::F32(int v) const {
  if (v < 0 || v >= int(slots_.size())) return false;
  const Tensor& t = slots_[v];
  if (t.dtype != DType::kFloat32 || !t.is_tensor() || t.shape.size() > 12) return false;
  for (int64_t d : t.shape)
    if (d <= 0) return false;
  return true;
}

const Node* Compiler::NextSoleReader(int v) const {
  if (pos_ + 1 >= part_.nodes.size() || absorbed_[pos_ + 1] || IsLiveOut(v) || info_.readers[v] != 1) return nullptr;
  const Node& n = NodeAt(pos_ + 1);
  for (int i : n.inputs)
    if (i == v) return &n;
  return nullptr;
}

memory::desc Compiler::PlainDesc(int v) const {
  const Shape& s = slots_[v].shape;
  memory::dims dims(s.begin(), s.end()), strides(s.size());
  if (dims.empty()) dims = {1};
  strides.resize(dims.size());
  int64_t st = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = st;
    st *= dims[i];
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

memory Compiler::SlotMem(int v) const { return memory(PlainDesc(v), eng_, slots_[v].data); }

void Compiler::Reorder(const memory& from, const memory& to, const std::string& what) {
  dnnl::reorder r(from, to);
  Step s;
  s.prim = r;
  s.args = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  s.label = what;
  steps_.push_back(std::move(s));
}

memory Compiler::Plain(int v) {
  Rep& r = rep_[v];
  if (!r.plain) {
    // Produced in this partition and held only in a private buffer so far.
    memory slot = SlotMem(v);
    Reorder(r.blocked, slot, "reorder to plain " + g_.values[v].name);
    r.plain = true;
  }
  return SlotMem(v);
}

memory Compiler::Current(int v) {
  if (rep_[v].blocked) return rep_[v].blocked;
  return Plain(v);
}

memory Compiler::In(int v, const memory::desc& d) {
  if (d == PlainDesc(v)) return Plain(v);
  Rep& r = rep_[v];
  if (r.blocked && r.blocked.get_desc() == d) return r.blocked;
  for (const memory& m : r.others)
    if (m.get_desc() == d) return m;
  memory m(d, eng_);
  if (IsConst(v) && !produced_[v]) {
    memory from = SlotMem(v);
    dnnl::reorder(from, m).execute(strm_, from, m);
    strm_.wait();
    held_.push_back(m);
  } else {
    Reorder(Current(v), m, "reorder " + g_.values[v].name);
  }
  rep_[v].others.push_back(m);
  return m;
}

bool Compiler::Overlap(int a, int b) const {
  const Tensor& x = slots_[a];
  const Tensor& y = slots_[b];
  if (!x.data || !y.data) return false;
  const char* xa = static_cast<const char*>(x.data);
  const char* ya = static_cast<const char*>(y.data);
  return xa < ya + y.nbytes() && ya < xa + x.nbytes();
}

memory Compiler::Out(int v, const memory::desc& d, const std::vector<int>& reads) {
  Rep& r = rep_[v];
  r.others.clear();
  bool overlap = false;
  for (int i : reads) overlap = overlap || (i >= 0 && i != v && Overlap(i, v));
  if (d == PlainDesc(v) && !overlap) {
    r.plain = true;
    r.blocked = memory();
    return SlotMem(v);
  }
  r.plain = false;
  r.blocked = memory(d, eng_);
  return r.blocked;
}

void Compiler::Done(int v) {
  if (IsLiveOut(v) && !rep_[v].plain) Plain(v);
}

void Compiler::Add(dnnl::primitive p, std::unordered_map<int, memory> args, const std::string& impl) {
  const Node& n = NodeAt(start_);
  Step s;
  s.prim = std::move(p);
  s.args = std::move(args);
  s.label = n.op + " " + n.name;
  steps_.push_back(std::move(s));
  if (!impl.empty()) impls_.push_back(n.name + " (" + n.op + "): " + impl);
}

void Compiler::AddFn(std::function<Status()> fn) {
  Step s;
  s.fn = std::move(fn);
  s.label = NodeAt(pos_).op + " " + NodeAt(pos_).name;
  steps_.push_back(std::move(s));
}

void Compiler::Restore(const Snapshot& s) {
  steps_.resize(s.steps);
  held_.resize(s.held);
  impls_.resize(s.impls);
  pos_ = s.pos;
  absorbed_ = s.absorbed;
  rep_ = s.rep;
}

Status Compiler::CompileRef(const Node& n) {
  TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(n, DType::kFloat32));
  auto ins = std::make_shared<std::vector<Tensor>>(n.inputs.size());
  auto outs = std::make_shared<std::vector<Tensor>>(n.outputs.size());
  auto in_ptrs = std::make_shared<std::vector<const Tensor*>>(n.inputs.size(), nullptr);
  auto out_ptrs = std::make_shared<std::vector<Tensor*>>(n.outputs.size(), nullptr);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    if (!rep_[v].plain) Plain(v);
    (*ins)[i] = slots_[v];
    (*in_ptrs)[i] = &(*ins)[i];
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const int v = n.outputs[i];
    if (v < 0) continue;
    (*outs)[i] = slots_[v];
    (*out_ptrs)[i] = &(*outs)[i];
  }
  const std::string where = n.Where();
  AddFn([k, ins, outs, in_ptrs, out_ptrs, where] { return k(*in_ptrs, *out_ptrs).With(where); });
  for (int v : n.outputs)
    if (v >= 0) {
      rep_[v].plain = true;
      rep_[v].blocked = memory();
      rep_[v].others.clear();
    }
  impls_.push_back(n.name + " (" + n.op + "): reference kernel");
  return Status::Ok();
}

namespace {

const OpImpl* Find(const Node& n) {
  if (!n.domain.empty() && n.domain != "ai.onnx") return nullptr;
  for (const OpImpl& op : OnednnOps())
    if (n.op == op.op) return &op;
  return nullptr;
}

class OnednnExecutable : public Executable {
 public:
  OnednnExecutable(std::vector<Step> steps, std::vector<memory> held, dnnl::stream strm, int threads)
      : steps_(std::move(steps)), held_(std::move(held)), strm_(std::move(strm)), threads_(threads) {}

  Status Run(std::vector<Tensor>& slots) override {
    (void)slots;  // the memory objects were bound to the slots' addresses at Compile
    SetOmpThreads(threads_);
    for (Step& s : steps_) {
      if (s.fn) {
        strm_.wait();
        TARE_RETURN_IF_ERROR(s.fn());
        continue;
      }
      try {
        s.prim.execute(strm_, s.args);
      } catch (const dnnl::error& e) {
        return Status::Error("onednn: " + s.label + ": " + e.what());
      }
    }
    strm_.wait();
    return Status::Ok();
  }

 private:
  std::vector<Step> steps_;
  std::vector<memory> held_;
  dnnl::stream strm_;
  int threads_;
};

class OnednnBackend : public Backend {
 public:
  std::string name() const override { return "onednn"; }
  DType float_storage() const override { return DType::kFloat32; }

  bool ClaimsOp(const std::string& domain, const std::string& op) const override {
    Node n;
    n.op = op;
    n.domain = domain;
    return Find(n) != nullptr;
  }

  bool Supports(const Node& node, const Graph& graph) const override {
    const OpImpl* op = Find(node);
    if (!op) return false;
    if (node.outputs.empty() || !IsF32(graph, node.outputs[0])) return false;
    return op->supports(node, graph, Info(graph));
  }

  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    const int threads = options.threads > 0 ? options.threads : 1;
    SetOmpThreads(threads);
    try {
      std::call_once(engine_once_, [this] { engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0); });
      dnnl::stream strm(engine_);
      Compiler c(graph, part, slots, Info(graph), engine_, strm);
      for (size_t p = 0; p < part.nodes.size(); ++p) {
        if (c.Absorbed(p)) continue;
        c.Begin(p);
        const Node& n = graph.nodes[part.nodes[p]];
        const OpImpl* op = Find(n);
        const bool f32 = !n.outputs.empty() && c.F32(n.outputs[0]) && !n.inputs.empty() && c.F32(n.inputs[0]);
        if (!op || !f32) {
          TARE_RETURN_IF_ERROR(c.CompileRef(n));
          continue;
        }
        Compiler::Snapshot snap = c.Save();
        Status st = Status::Ok();
        try {
          st = op->compile(c, n);
        } catch (const dnnl::error& e) {
          // No primitive for these shapes/attributes: the reference kernel runs the node.
          c.Restore(snap);
          st = c.CompileRef(n);
        }
        TARE_RETURN_IF_ERROR(st);
      }
      if (const char* verbose = std::getenv("TARE_ONEDNN_VERBOSE"); verbose && *verbose && std::strcmp(verbose, "0"))
        for (const std::string& line : c.impls()) std::fprintf(stderr, "onednn: %s\n", line.c_str());
      return std::unique_ptr<Executable>(new OnednnExecutable(c.TakeSteps(), c.TakeHeld(), strm, threads));
    } catch (const dnnl::error& e) {
      return Status::Error(std::string("onednn backend: ") + e.what());
    }
  }

 private:
  const GraphInfo& Info(const Graph& g) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (info_graph_ != &g || info_.known.size() != g.values.size()) {
      info_ = GraphInfo::Of(g);
      info_graph_ = &g;
    }
    return info_;
  }
  std::once_flag engine_once_;
  dnnl::engine engine_;
  mutable std::mutex mu_;
  mutable const Graph* info_graph_ = nullptr;
  mutable GraphInfo info_;
};

}  // namespace

std::unique_ptr<Backend> CreateOnednnBackend() { return std::unique_ptr<Backend>(new OnednnBackend); }

}  // namespace tare::onednn
