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

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backends/common/step_profile.h"
#include "backends/onednn/compiler.h"
#include "backends/onednn/onednn_backend.h"
#include "runtime/exec/ref_kernel.h"

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

/// Elements of v's slot (0 when absent).
double Numel(const std::vector<Tensor>& slots, int v) {
  if (v < 0 || v >= int(slots.size())) return 0;
  double n = 1;
  for (int64_t d : slots[v].shape) n *= double(d);
  return n;
}

/// Work of node n at its concrete shapes, in multiply-adds x 2 for convolutions, matmuls and
/// RNNs, else the elements it reads and writes. Used to choose how many threads its primitive gets.
double NodeWork(const Node& n, const std::vector<Tensor>& slots) {
  auto in = [&](size_t i) { return i < n.inputs.size() ? n.inputs[i] : -1; };
  const int y = n.outputs.empty() ? -1 : n.outputs[0];
  if ((n.op == "Conv" || n.op == "ConvTranspose") && in(1) >= 0 && !slots[in(1)].shape.empty()) {
    const double per = Numel(slots, in(1)) / double(slots[in(1)].shape[0]);  // W: [M, C/g, k...] or [C, M/g, k...]
    return 2 * per * (n.op == "Conv" ? Numel(slots, y) : Numel(slots, in(0)));
  }
  if ((n.op == "MatMul" || n.op == "Gemm") && in(0) >= 0 && !slots[in(0)].shape.empty()) {
    const Shape& a = slots[in(0)].shape;
    int64_t k = a.back();
    if (n.op == "Gemm" && a.size() == 2) {
      Result<int64_t> t = n.GetInt("transA", 0);
      if (t.ok() && *t) k = a[0];
    }
    return 2 * double(k) * Numel(slots, y);
  }
  if ((n.op == "LSTM" || n.op == "GRU") && in(0) >= 0 && slots[in(0)].shape.size() == 3)
    return 2 * double(slots[in(0)].shape[0]) * double(slots[in(0)].shape[1]) * (Numel(slots, in(1)) + Numel(slots, in(2)));
  double e = 0;
  for (int v : n.inputs) e += Numel(slots, v);
  for (int v : n.outputs) e += Numel(slots, v);
  return e;
}

/// Whether node n is worth splitting across threads: an OpenMP parallel region costs tens of
/// microseconds on a busy or passive-waiting machine (waking the workers), more than a small
/// layer takes on one core. Compute-bound ops (FLOPs above) at 1 thread run about 100 GFLOP/s and
/// memory-bound ones about 1 G elements/s on the machines measured (docs/PERFORMANCE.md): the
/// memory-bound threshold is about 50 us of single-thread work, the convolutions' and products'
/// 1 MFLOP about 10 us (AMD EPYC Zen 3, 2 threads, against 5 MFLOP: ResNet-20 1.17 -> 1.12 ms,
/// MobileNetV2 5.5 -> 5.3 ms), an RNN's 5 MFLOP (its steps are small parallel regions in a
/// sequence: lstm_text took 0.24 -> 0.55 ms at 1 MFLOP).
bool WorthThreads(const Node& n, const std::vector<Tensor>& slots) {
  const bool rnn = n.op == "LSTM" || n.op == "GRU";
  const bool compute = n.op == "Conv" || n.op == "ConvTranspose" || n.op == "MatMul" || n.op == "Gemm" || rnn;
  static const double flops = [] {
    const char* e = std::getenv("TARE_ONEDNN_MIN_PARALLEL_FLOPS");
    return e ? std::atof(e) : 1e6;
  }();
  static const double elems = [] {
    const char* e = std::getenv("TARE_ONEDNN_MIN_PARALLEL_ELEMS");
    return e ? std::atof(e) : 5e4;
  }();
  // A product with a large B (a classifier at batch 1: 1280 x 1000 floats, 5 MB, 2.6 MFLOP) is
  // bound by reading B, which two cores do faster (Zen 3: EfficientNet-B0's classifier 0.29 ->
  // 0.24 ms at 2 threads).
  if ((n.op == "MatMul" || n.op == "Gemm") && n.inputs.size() > 1 && Numel(slots, n.inputs[1]) >= 10 * elems) return true;
  return NodeWork(n, slots) >= (rnn ? 5 * flops : compute ? flops : elems);
}

}  // namespace

Compiler::Compiler(const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info,
                   const dnnl::engine& eng, dnnl::stream& strm)
    : g_(g), part_(part), slots_(slots), info_(info), eng_(eng), strm_(strm) {
  live_out_.assign(g.values.size(), 0);
  for (int v : part.live_out) live_out_[v] = 1;
  absorbed_.assign(part.nodes.size() + 1, 0);
  notes_.assign(part.nodes.size(), "");
  rep_.assign(g.values.size(), Rep());
  std::vector<char> produced(g.values.size(), 0);
  for (int ni : part.nodes)
    for (int v : g.nodes[ni].outputs)
      if (v >= 0) produced[v] = 1;
  for (size_t v = 0; v < g.values.size(); ++v) rep_[v].plain = !produced[v];
  produced_ = std::move(produced);
  // TARE_ONEDNN_LAYOUT=blocked: convolutions ask for channel-blocked destinations (for
  // measurements; docs/ONEDNN.md, "Layouts").
  const char* forced = std::getenv("TARE_ONEDNN_LAYOUT");
  blocked_policy_ = forced && std::strcmp(forced, "blocked") == 0;
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

const Node* Compiler::NextSilu(int v) const {
  if (pos_ + 2 >= part_.nodes.size() || absorbed_[pos_ + 1] || absorbed_[pos_ + 2] || IsLiveOut(v) ||
      info_.readers[v] != 2)
    return nullptr;
  const Node& sig = NodeAt(pos_ + 1);
  const Node& mul = NodeAt(pos_ + 2);
  if (sig.op != "Sigmoid" || !sig.domain.empty() || sig.inputs.size() != 1 || sig.inputs[0] != v || sig.outputs.empty())
    return nullptr;
  const int s = sig.outputs[0];
  if (s < 0 || IsLiveOut(s) || info_.readers[s] != 1) return nullptr;
  if (mul.op != "Mul" || !mul.domain.empty() || mul.inputs.size() != 2 || mul.outputs.empty()) return nullptr;
  if (!((mul.inputs[0] == v && mul.inputs[1] == s) || (mul.inputs[0] == s && mul.inputs[1] == v))) return nullptr;
  return &mul;
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
  s.threads = threads_;
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

/// The Concat reading v (its only reader) when v can be written into its buffer (see ConcatPart),
/// with v's input index and every input's channel offset; nullptr otherwise.
const Node* Compiler::ConcatReader(int v, size_t* index, std::vector<int64_t>* offsets, int64_t* block) const {
  if (v < 0 || IsLiveOut(v) || info_.readers[v] != 1) return nullptr;
  size_t p = pos_ + 1;
  while (p < part_.nodes.size() && std::find(NodeAt(p).inputs.begin(), NodeAt(p).inputs.end(), v) == NodeAt(p).inputs.end())
    ++p;
  if (p >= part_.nodes.size() || absorbed_[p]) return nullptr;
  const Node& n = NodeAt(p);
  if (n.op != "Concat" || !n.domain.empty() || n.outputs.empty() || !F32(n.outputs[0])) return nullptr;
  const Shape& Y = shape(n.outputs[0]);
  const size_t rank = Y.size();
  if (rank < 3 || rank > 5 || Y[0] != 1) return nullptr;
  Result<int64_t> axis = n.GetInt("axis", 0);
  if (!axis.ok() || (*axis != 1 && *axis != 1 - int64_t(rank))) return nullptr;
  *index = n.inputs.size();
  offsets->clear();
  int64_t off = 0;
  *block = MaxChannelBlock();
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int u = n.inputs[i];
    if (u == v) {
      if (*index != n.inputs.size()) return nullptr;  // read twice
      *index = i;
    }
    if (!F32(u) || shape(u).size() != rank) return nullptr;
    for (size_t d = 0; d < rank; ++d)
      if (d != 1 && shape(u)[d] != Y[d]) return nullptr;
    offsets->push_back(off);
    off += shape(u)[1];
    while (*block > 1 && shape(u)[1] % *block != 0) *block /= 2;
  }
  if (off != Y[1] || *block < 8) return nullptr;
  auto it = concat_.find(n.outputs[0]);
  if (it != concat_.end()) {
    if (it->second.written[*index]) return nullptr;
    *block = it->second.block;
  }
  return &n;
}

memory::desc Compiler::ConcatPart(int v) const {
  size_t index = 0;
  std::vector<int64_t> offsets;
  int64_t block = 0;
  if (!ConcatReader(v, &index, &offsets, &block)) return memory::desc();
  return memory::desc(memory::dims(shape(v).begin(), shape(v).end()), memory::data_type::f32, BlockedTag(shape(v).size(), block));
}

bool ExpKernelsInBudget() {
  const int isa = static_cast<int>(dnnl::get_effective_cpu_isa());
  return (isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
}

int64_t Compiler::MaxChannelBlock() {
  const int isa = static_cast<int>(dnnl::get_effective_cpu_isa());
  return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core ? 16 : 8;
}

memory::format_tag Compiler::BlockedTag(size_t rank, int64_t block) {
  using tag = memory::format_tag;
  if (rank == 3) return block == 16 ? tag::aBc16b : tag::aBc8b;
  if (rank == 4) return block == 16 ? tag::aBcd16b : tag::aBcd8b;
  return block == 16 ? tag::aBcde16b : tag::aBcde8b;
}

memory Compiler::ConcatOut(int v) {
  size_t index = 0;
  std::vector<int64_t> offsets;
  int64_t block = 0;
  const Node* n = ConcatReader(v, &index, &offsets, &block);
  if (!n) return memory();
  const int y = n->outputs[0];
  auto it = concat_.find(y);
  if (it == concat_.end()) {
    ConcatTarget t;
    t.whole = memory(memory::desc(memory::dims(shape(y).begin(), shape(y).end()), memory::data_type::f32,
                                  BlockedTag(shape(y).size(), block)),
                     eng_);
    t.block = block;
    t.offsets = offsets;
    t.written.assign(n->inputs.size(), 0);
    held_.push_back(t.whole);
    it = concat_.emplace(y, std::move(t)).first;
  }
  it->second.written[index] = 1;
  memory m = it->second.Part(shape(v), index, eng_);
  Hold(v, m);
  return m;
}

memory Compiler::ConcatTarget::Part(const Shape& s, size_t i, const dnnl::engine& eng) const {
  // Batch 1 and channel blocks: input i's part is one contiguous run of the buffer, laid out as a
  // dense tensor of its own shape, starting at its first channel block.
  int64_t spatial = 1;
  for (size_t d = 2; d < s.size(); ++d) spatial *= s[d];
  float* base = static_cast<float*>(whole.get_data_handle()) + offsets[i] * spatial;
  return memory(memory::desc(memory::dims(s.begin(), s.end()), memory::data_type::f32, BlockedTag(s.size(), block)), eng,
                base);
}

Compiler::ConcatTarget* Compiler::ConcatOf(int y) {
  auto it = concat_.find(y);
  return it == concat_.end() ? nullptr : &it->second;
}

void Compiler::Hold(int v, const memory& m) {
  rep_[v].plain = false;
  rep_[v].blocked = m;
  rep_[v].others.clear();
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
  s.threads = threads_;
  steps_.push_back(std::move(s));
  if (!impl.empty()) notes_[start_] = impl;
}

void Compiler::AddFn(std::function<Status()> fn, std::string label) {
  Step s;
  s.fn = std::move(fn);
  s.label = label.empty() ? NodeAt(pos_).op + " " + NodeAt(pos_).name : std::move(label);
  steps_.push_back(std::move(s));
}

void Compiler::Restore(const Snapshot& s) {
  steps_.resize(s.steps);
  held_.resize(s.held);
  notes_ = s.notes;
  concat_ = s.concat;
  pos_ = s.pos;
  absorbed_ = s.absorbed;
  rep_ = s.rep;
}

Status Compiler::CompileRef(const Node& n) {
  // Tensors bound now, in plain layouts.
  std::vector<Tensor> ins(n.inputs.size()), outs(n.outputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    if (!rep_[v].plain) Plain(v);
    ins[i] = slots_[v];
  }
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= 0) outs[i] = slots_[n.outputs[i]];
  TARE_ASSIGN_OR_RETURN(std::function<Status()> step, RefStep(n, std::move(ins), std::move(outs)));
  AddFn(std::move(step));
  for (int v : n.outputs)
    if (v >= 0) {
      rep_[v].plain = true;
      rep_[v].blocked = memory();
      rep_[v].others.clear();
    }
  notes_[pos_] = "reference kernel";
  return Status::Ok();
}

bool Compiler::ChainNeedsGuard() const {
  static const char* kOps[] = {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh", "Exp",
                               "Sqrt", "Abs", "Neg", "MaxPool", "GlobalMaxPool", "Softmax"};
  // The reference kernel and the backend's own steps (own_ops.cc: notes "own ...") keep NaN.
  if (notes_[start_] == "reference kernel" || notes_[start_].rfind("own ", 0) == 0) return false;
  for (size_t p = start_; p <= pos_; ++p) {
    const Node& n = NodeAt(p);
    // A Sigmoid fused with its Mul into eltwise_swish (SiLU: x * s(x)) keeps NaN and the infinities
    // as the reference does (a NaN x times anything is NaN; tests "onednn runs SiLU ..." and
    // "onednn Conv + SiLU ..." plant NaN and +-inf), so a Conv + SiLU chain needs no scan (Zen 3:
    // EfficientNet-B0 0.3-0.5 ms faster at 1 and 2 threads).
    if (n.op == "Sigmoid" && p + 1 <= pos_) {
      const Node& m = NodeAt(p + 1);
      const int v = n.inputs[0], s = n.outputs[0];
      if (m.op == "Mul" && m.inputs.size() == 2 &&
          ((m.inputs[0] == v && m.inputs[1] == s) || (m.inputs[0] == s && m.inputs[1] == v)))
        continue;
    }
    for (const char* o : kOps)
      if (n.op == o && n.domain.empty()) return true;
  }
  return false;
}

Status Compiler::GuardChain(const Snapshot& before) {
  // The chain's nodes, in order, each with its reference kernel; the values it produces.
  std::vector<Node> nodes;
  std::vector<KernelFn> kernels;
  std::vector<char> inside(g_.values.size(), 0);
  for (size_t p = start_; p <= pos_; ++p) {
    nodes.push_back(NodeAt(p));
    TARE_ASSIGN_OR_RETURN(KernelFn k, MakeRefKernel(nodes.back(), DType::kFloat32));
    kernels.push_back(std::move(k));
    for (int v : nodes.back().outputs)
      if (v >= 0) inside[v] = 1;
  }
  // Its inputs: known ones (plain in their slots, checked now), and the others as held before the
  // chain's steps (which may reorder them, and whose output may reuse an input's bytes).
  struct Input {
    int v;
    Tensor plain;        // the slot's tensor (its bytes hold v when `held` is empty)
    memory held;         // v's blocked buffer, when the slot does not hold v
    memory::desc desc;   // v's plain desc (for the reorder out of `held`)
    bool known = false;  // known at plan time (scanned now)
  };
  std::vector<Input> ins;
  bool known_finite = true;
  std::vector<char> seen(g_.values.size(), 0);
  for (const Node& n : nodes)
    for (int v : n.inputs) {
      if (v < 0 || inside[v] || seen[v]) continue;
      seen[v] = 1;
      Input in{v, slots_[v], memory(), PlainDesc(v), IsConst(v) && !produced_[v]};
      if (in.known) {
        if (in.plain.dtype == DType::kFloat32)
          known_finite = known_finite && AllFinite(in.plain.as<float>(), size_t(in.plain.numel()));
      } else if (!before.rep[v].plain) {
        in.held = before.rep[v].blocked;
      }
      ins.push_back(std::move(in));
    }
  // Where the chain's primitives left its output: its blocked buffer and/or its slot.
  const int y = nodes.back().outputs[0];
  std::vector<memory> dsts;
  if (rep_[y].blocked) dsts.push_back(rep_[y].blocked);
  if (rep_[y].plain) dsts.push_back(SlotMem(y));
  const memory::desc y_plain = PlainDesc(y);
  std::unordered_map<int, std::pair<DType, Shape>> types;
  for (const Node& n : nodes)
    for (int v : n.outputs)
      if (v >= 0) types[v] = {slots_[v].dtype, slots_[v].shape};
  const dnnl::engine eng = eng_;
  dnnl::stream strm = strm_;
  if (!guard_state_) {
    guard_state_ = std::make_shared<GuardState>();
    guard_state_->finite.assign(g_.values.size(), 0);
  }
  std::shared_ptr<GuardState> state = guard_state_;
  // Before the chain's steps: the scan, and on a NaN or an inf the reference kernels into `result`;
  // after them: `result` over what the primitives wrote.
  auto result = std::make_shared<Tensor>();
  Step pre;
  pre.label = "NaN/inf guard of " + NodeAt(start_).op + " " + NodeAt(start_).name;
  pre.fn = [=]() mutable -> Status {
    bool finite = known_finite;
    for (size_t i = 0; i < ins.size() && finite; ++i) {
      const Input& in = ins[i];
      if (in.known || in.plain.dtype != DType::kFloat32 || state->finite[size_t(in.v)] == state->run) continue;
      finite = in.held ? AllFinite(static_cast<const float*>(in.held.get_data_handle()),
                                   in.held.get_desc().get_size() / sizeof(float))
                       : AllFinite(in.plain.as<float>(), size_t(in.plain.numel()));
      if (finite) state->finite[size_t(in.v)] = state->run;
    }
    if (finite) return Status::Ok();
    // The chain again on the reference kernels, on plain copies.
    std::unordered_map<int, Tensor> vals;
    for (const Input& in : ins) {
      if (!in.held) {
        vals[in.v] = in.plain;
        continue;
      }
      TARE_ASSIGN_OR_RETURN(Tensor t, Tensor::Alloc(in.plain.dtype, in.plain.shape));
      memory from = in.held, to(in.desc, eng, t.data);
      dnnl::reorder(from, to).execute(strm, from, to);
      strm.wait();
      vals[in.v] = t;
    }
    for (size_t k = 0; k < nodes.size(); ++k) {
      const Node& n = nodes[k];
      std::vector<const Tensor*> in_ptrs(n.inputs.size(), nullptr);
      std::vector<Tensor*> out_ptrs(n.outputs.size(), nullptr);
      for (size_t i = 0; i < n.inputs.size(); ++i)
        if (n.inputs[i] >= 0) in_ptrs[i] = &vals.at(n.inputs[i]);
      for (size_t i = 0; i < n.outputs.size(); ++i) {
        const int v = n.outputs[i];
        if (v < 0) continue;
        TARE_ASSIGN_OR_RETURN(vals[v], Tensor::Alloc(types.at(v).first, types.at(v).second));
      }
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (n.outputs[i] >= 0) out_ptrs[i] = &vals.at(n.outputs[i]);
      TARE_RETURN_IF_ERROR(kernels[k](in_ptrs, out_ptrs).With(n.Where()));
    }
    *result = vals.at(y);
    return Status::Ok();
  };
  steps_.insert(steps_.begin() + std::ptrdiff_t(before.steps), std::move(pre));
  AddFn([=]() mutable -> Status {
    if (!result->data) return Status::Ok();
    memory from(y_plain, eng, result->data);
    for (memory& d : dsts) dnnl::reorder(from, d).execute(strm, from, d);
    strm.wait();
    *result = Tensor();
    return Status::Ok();
  }, "NaN/inf guard result of " + NodeAt(start_).op + " " + NodeAt(start_).name);
  return Status::Ok();
}

std::vector<Step> Compiler::TakeSteps() {
  if (guard_state_) {
    Step open;
    open.label = "new run for the NaN/inf guards";
    std::shared_ptr<GuardState> state = guard_state_;
    open.fn = [state] {
      ++state->run;
      return Status::Ok();
    };
    steps_.insert(steps_.begin(), std::move(open));
  }
  return std::move(steps_);
}

namespace {

/// With the environment variable TARE_ONEDNN_PROFILE set, every step is timed (the stream waited
/// on after each) and the mean and minimum per step (its label: node op and name, "[own]" for the
/// backend's own steps) are printed to stderr when the partition is destroyed (StepProfile, as
/// the cpu backend's TARE_CPU_PROFILE; off by default).
class OnednnExecutable : public Executable {
 public:
  OnednnExecutable(std::vector<Step> steps, std::vector<memory> held, dnnl::stream strm, int threads,
                   std::vector<std::string> notes)
      : steps_(std::move(steps)), held_(std::move(held)), strm_(std::move(strm)), threads_(threads),
        notes_(std::move(notes)), profile_("TARE_ONEDNN_PROFILE", "onednn", Labels(steps_)) {}
  std::vector<std::string> Notes() const override { return notes_; }

  Status Run(std::vector<Tensor>& slots) override {
    (void)slots;  // the memory objects were bound to the slots' addresses at Compile
    int current = threads_;
    SetOmpThreads(current);
    const bool profile = profile_.on();
    if (profile) profile_.NewRun();
    for (size_t i = 0; i < steps_.size(); ++i) {
      Step& s = steps_[i];
      if (s.threads != current) SetOmpThreads(current = s.threads);
      const auto t0 = profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
      if (s.fn) {
        strm_.wait();
        TARE_RETURN_IF_ERROR(s.fn());
      } else {
        try {
          s.prim.execute(strm_, s.args);
        } catch (const dnnl::error& e) {
          return Status::Error("onednn: " + s.label + ": " + e.what());
        }
      }
      if (profile) {
        strm_.wait();
        profile_.Add(i, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    }
    strm_.wait();
    if (current != threads_) SetOmpThreads(threads_);
    return Status::Ok();
  }

 private:
  std::vector<Step> steps_;
  std::vector<memory> held_;
  dnnl::stream strm_;
  int threads_;
  std::vector<std::string> notes_;
  StepProfile profile_;

  static std::vector<std::string> Labels(const std::vector<Step>& steps) {
    std::vector<std::string> l;
    for (const Step& s : steps) l.push_back((s.fn ? "[own] " : "") + s.label);
    return l;
  }
};

class OnednnBackend : public TableBackend<Compiler> {
 public:
  OnednnBackend() : TableBackend<Compiler>(OnednnOps()) {}
  std::string name() const override { return "onednn"; }

  std::string Declines(const Node& node, const Graph& graph) const override {
    if (node.op == "LSTM" || node.op == "GRU") return RnnDeclines(node, graph, Info(graph));
    if ((node.op == "Sigmoid" || node.op == "Exp") && !ExpKernelsInBudget())
      return "oneDNN's exp without FMA (below AVX2) is over budget (docs/FINDINGS.md F14)";
    const GraphInfo& info = Info(graph);
    auto known = [&](size_t i) { return i >= node.inputs.size() || node.inputs[i] < 0 || info.known[node.inputs[i]]; };
    if (!node.outputs.empty() && node.outputs[0] >= 0 && !IsF32(graph, node.outputs[0])) return "not float32";
    if ((node.op == "Conv" || node.op == "ConvTranspose") && (!known(1) || !known(2)))
      return "weights and bias must be known at plan time";
    if (node.op == "MaxPool" && node.outputs.size() > 1 && node.outputs[1] >= 0) return "the Indices output";
    if (node.op == "BatchNormalization") return "training_mode or parameters known only at run time";
    if (node.op == "Dropout") return "the mask output or training_mode known only at run time";
    if (node.op == "Clip") return "bounds known only at run time";
    return "dtypes or attributes it does not cover (docs/ONEDNN.md, \"What it claims\")";
  }

  Result<std::unique_ptr<Executable>> Compile(const Graph& graph, const Partition& part, const std::vector<Tensor>& slots,
                                              const SessionOptions& options) override {
    // float16 nodes: computed in float32 by the same primitives (WidePartition; oneDNN 2.6 has
    // float16 kernels only for AVX-512 FP16 CPUs).
    TARE_ASSIGN_OR_RETURN(std::unique_ptr<Executable> wide,
                          CompileWidened(graph, part, slots, [&](const Graph& g, const Partition& p, const std::vector<Tensor>& s) {
                            return Compile(g, p, s, options);
                          }));
    if (wide) return wide;
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
        const int node_threads = threads > 1 && WorthThreads(n, slots) ? threads : 1;
        SetOmpThreads(node_threads);
        c.SetThreads(node_threads);
        const OpImpl* op = Find(n);
        const bool f32 = c.F32(FirstOutput(n)) && !n.inputs.empty() && c.F32(n.inputs[0]);
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
        if (c.ChainNeedsGuard()) TARE_RETURN_IF_ERROR(c.GuardChain(snap));
      }
      SetOmpThreads(threads);
      if (const char* verbose = std::getenv("TARE_ONEDNN_VERBOSE"); verbose && *verbose && std::strcmp(verbose, "0"))
        for (size_t p = 0; p < part.nodes.size(); ++p) {
          const Node& n = graph.nodes[part.nodes[p]];
          std::fprintf(stderr, "onednn: %s (%s): %s\n", n.name.c_str(), n.op.c_str(), c.notes()[p].c_str());
        }
      return std::unique_ptr<Executable>(new OnednnExecutable(c.TakeSteps(), c.TakeHeld(), strm, threads, c.notes()));
    } catch (const dnnl::error& e) {
      return Status::Error(std::string("onednn backend: ") + e.what());
    }
  }

 private:
  std::once_flag engine_once_;
  dnnl::engine engine_;
};

}  // namespace

std::unique_ptr<Backend> CreateOnednnBackend() { return std::unique_ptr<Backend>(new OnednnBackend); }

}  // namespace tare::onednn
