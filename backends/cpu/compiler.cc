#include "backends/cpu/compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "backends/common/step_profile.h"
#include "backends/cpu/buffer.h"

namespace tare::cpu {
namespace {

constexpr size_t kBlock = 32;

/// y (cols x rows) = transpose of x (rows x cols), source rows [r0, r1).
void TransposeRows(const float* x, float* y, size_t rows, size_t cols, size_t r0, size_t r1) {
  for (size_t c0 = 0; c0 < cols; c0 += kBlock) {
    const size_t c1 = std::min(cols, c0 + kBlock);
    for (size_t r = r0; r < r1; ++r) {
      const float* xr = x + r * cols;
      for (size_t c = c0; c < c1; ++c) y[c * rows + r] = xr[c];
    }
  }
}

/// y[c][r] = x[r][c] for columns [c0, c1) of a (R x cols) matrix with few rows (R known when
/// compiled where R > 0): y is written in order.
template <size_t R>
void TransposeFewRows(const float* x, float* y, size_t rows, size_t cols, size_t c0, size_t c1) {
  const size_t nr = R > 0 ? R : rows;
  for (size_t c = c0; c < c1; ++c)
    for (size_t r = 0; r < nr; ++r) y[c * nr + r] = x[r * cols + c];
}

/// n independent transposes of (rows x cols) matrices, parallel over blocks of source rows; with
/// fewer rows than a block (an image's 3 channels to NHWC), over runs of columns instead (the row
/// blocks made one task; 224 x 224 x 3 took 0.10 ms, Zen 3).
void BatchedTranspose(const float* x, float* y, size_t n, size_t rows, size_t cols, const ThreadPool* pool) {
  if (rows < 8 && cols >= 1024) {
    constexpr size_t kCols = 4096;
    const size_t runs = (cols + kCols - 1) / kCols;
    pool->ParallelFor(n * runs, 1, [=](size_t b, size_t e) {
      for (size_t t = b; t < e; ++t) {
        const size_t img = t / runs, c0 = t % runs * kCols, c1 = std::min(cols, c0 + kCols);
        const float* xi = x + img * rows * cols;
        float* yi = y + img * rows * cols;
        if (rows == 3) TransposeFewRows<3>(xi, yi, rows, cols, c0, c1);
        else if (rows == 1) TransposeFewRows<1>(xi, yi, rows, cols, c0, c1);
        else TransposeFewRows<0>(xi, yi, rows, cols, c0, c1);
      }
    });
    return;
  }
  const size_t blocks = (rows + kBlock - 1) / kBlock;
  const size_t per_block = kBlock * cols;
  // About 64 KiB of source per task, at least one row block.
  const size_t tile = std::max<size_t>(1, (size_t(16) << 10) / std::max<size_t>(1, per_block));
  pool->ParallelFor(n * blocks, tile, [=](size_t b, size_t e) {
    for (size_t t = b; t < e; ++t) {
      const size_t img = t / blocks, blk = t % blocks;
      const size_t r0 = blk * kBlock, r1 = std::min(rows, r0 + kBlock);
      TransposeRows(x + img * rows * cols, y + img * rows * cols, rows, cols, r0, r1);
    }
  });
}

/// With the environment variable TARE_CPU_PROFILE set, every step is timed and the mean and
/// minimum per step (node op and name) are printed to stderr when the partition is destroyed
/// (StepProfile; off by default, when Run pays one branch).
class CpuExecutable : public Executable {
 public:
  CpuExecutable(std::vector<StepFn> steps, std::vector<std::string> labels, std::vector<std::shared_ptr<void>> buffers,
                std::vector<XnnOp> ops, std::shared_ptr<ThreadPool> pool, std::vector<std::string> notes)
      : steps_(std::move(steps)),
        notes_(std::move(notes)),
        profile_("TARE_CPU_PROFILE", "cpu", std::move(labels)),
        buffers_(std::move(buffers)),
        ops_(std::move(ops)),
        pool_(std::move(pool)) {}
  std::vector<std::string> Notes() const override { return notes_; }
  Status Run(std::vector<Tensor>&) override {
    if (profile_.on()) {
      profile_.NewRun();
      for (size_t i = 0; i < steps_.size(); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        TARE_RETURN_IF_ERROR(steps_[i]());
        profile_.Add(i, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      return Status::Ok();
    }
    for (StepFn& s : steps_) TARE_RETURN_IF_ERROR(s());
    return Status::Ok();
  }

 private:
  std::vector<StepFn> steps_;
  std::vector<std::string> notes_;
  StepProfile profile_;
  std::vector<std::shared_ptr<void>> buffers_;
  std::vector<XnnOp> ops_;
  std::shared_ptr<ThreadPool> pool_;
};

}  // namespace

void NchwToNhwc(const float* x, float* y, size_t n, size_t c, size_t hw, const ThreadPool* pool) {
  BatchedTranspose(x, y, n, c, hw, pool);
}

void NhwcToNchw(const float* x, float* y, size_t n, size_t c, size_t hw, const ThreadPool* pool) {
  BatchedTranspose(x, y, n, hw, c, pool);
}

void CopyFloats(const float* x, float* y, size_t n, const ThreadPool* pool) {
  pool->ParallelFor(n, size_t(1) << 16, [=](size_t b, size_t e) { std::memcpy(y + b, x + b, (e - b) * sizeof(float)); });
}

Compiler::Compiler(const Graph& g, const Partition& part, const std::vector<Tensor>& slots, const GraphInfo& info,
                   ThreadPool* pool)
    : g_(g), part_(part), slots_(slots), info_(info), pool_(pool) {
  live_out_.assign(g.values.size(), 0);
  for (int v : part.live_out) live_out_[v] = 1;
  absorbed_.assign(part.nodes.size() + 1, 0);
  placed_.assign(g.values.size(), 0);
  rep_.assign(g.values.size(), Rep());
  std::vector<char> produced(g.values.size(), 0);
  for (int ni : part.nodes)
    for (int v : g.nodes[ni].outputs)
      if (v >= 0) produced[v] = 1;
  for (int ni : part.nodes)
    for (int v : g.nodes[ni].inputs)
      if (v >= 0 && !produced[v] && slots[v].dtype == DType::kFloat32) rep_[v].plain = static_cast<float*>(slots[v].data);
}

bool Compiler::LayoutMatters(int v) const {
  const Tensor& t = slots_[v];
  return t.dtype == DType::kFloat32 && t.shape.size() == 4 && t.shape[1] > 1 && t.shape[2] * t.shape[3] > 1;
}

bool Compiler::HasNHWC(int v) const { return LayoutMatters(v) && rep_[v].nhwc != nullptr; }

const Node* Compiler::NextSoleReader(int v) const {
  if (v < 0 || IsLiveOut(v) || info_.readers[v] != 1 || pos_ + 1 >= part_.nodes.size() || absorbed_[pos_ + 1])
    return nullptr;
  const Node& next = NodeAt(pos_ + 1);
  for (int in : next.inputs)
    if (in == v) return &next;
  return nullptr;
}

float* Compiler::Alloc(size_t n) {
  std::unique_ptr<void, FreeDeleter> p = AllocBytes(n * sizeof(float) + kXnnExtraBytes);
  float* f = static_cast<float*>(p.get());
  if (f) {
    buffers_.emplace_back(p.release(), FreeDeleter());
    return f;
  }
  out_of_memory_ = true;
  static float dummy[16];  // never run: Finish reports the failure
  return dummy;
}

xnn_operator* Compiler::Keep(XnnOp op) {
  ops_.push_back(std::move(op));
  return ops_.back().get();
}

bool Compiler::Overlap(const void* a, size_t abytes, const void* b, size_t bbytes) const {
  const char* pa = static_cast<const char*>(a);
  const char* pb = static_cast<const char*>(b);
  return pa < pb + bbytes && pb < pa + abytes;
}

const float* Compiler::In(int v, Layout l) {
  Rep& r = rep_[v];
  const Shape& s = slots_[v].shape;
  if (!LayoutMatters(v)) return r.plain ? r.plain : r.nhwc;
  const size_t n = s[0], c = s[1], hw = s[2] * s[3];
  ThreadPool* pool = pool_;
  if (l == Layout::kNHWC) {
    if (r.nhwc) return r.nhwc;
    float* buf = Alloc(n * c * hw);
    const float* src = r.plain;
    if (IsConst(v)) {
      NchwToNhwc(src, buf, n, c, hw, pool);
    } else {
      label_ = "[to NHWC] ";
      Add([=] { NchwToNhwc(src, buf, n, c, hw, pool); return Status::Ok(); });
      label_.clear();
    }
    r.nhwc = buf;
    return buf;
  }
  if (r.plain) return r.plain;
  float* buf = Alloc(n * c * hw);
  const float* src = r.nhwc;
  label_ = "[to NCHW] ";
  Add([=] { NhwcToNchw(src, buf, n, c, hw, pool); return Status::Ok(); });
  label_.clear();
  r.plain = buf;
  return buf;
}

float* Compiler::Out(int v, Layout l) {
  Rep& r = rep_[v];
  float* slot = static_cast<float*>(slots_[v].data);
  if (!LayoutMatters(v) || l == Layout::kPlain) {
    r.plain = slot;
    if (!LayoutMatters(v)) r.nhwc = slot;
    return slot;
  }
  if (IsLiveOut(v)) {
    const Shape& s = slots_[v].shape;
    r.pending = Alloc(static_cast<size_t>(s[0] * s[1] * s[2] * s[3]));
    r.nhwc = r.pending;
    return r.pending;
  }
  r.nhwc = slot;
  return slot;
}

float* Compiler::OutFused(int first, int last, Layout l,
                          const std::vector<std::pair<const void*, size_t>>& reads) {
  float* dst = Out(last, l);
  if (first == last) return dst;
  const size_t bytes = slots_[last].nbytes();
  bool clash = false;
  for (const auto& r : reads) clash = clash || Overlap(dst, bytes, r.first, r.second);
  if (!clash) return dst;
  float* alt = static_cast<float*>(slots_[first].data);
  if (!IsLiveOut(last)) {
    // `last` lives elsewhere for the rest of the partition, its readers read it there: in
    // `first`'s slot when no later node reuses those bytes before the last reader, else in a
    // private buffer (reused once its previous value's last reader has run).
    float* home = FirstSlotFree(first, last) ? alt : Relocate(last, bytes);
    Rep& r = rep_[last];
    if (r.plain == dst) r.plain = home;
    if (r.nhwc == dst) r.nhwc = home;
    return home;
  }
  // `last` is live out: the step writes elsewhere and Done copies it into its slot. `first`'s
  // slot may overlap `last`'s when the chain has 3+ nodes (the arena reuses `first`'s bytes once
  // its reader, the chain's second node, has run): then a private buffer (found by ASan on
  // MatMul + Add + Relu).
  if (Overlap(alt, slots_[first].nbytes(), dst, bytes)) alt = Alloc(bytes / sizeof(float));
  copy_.src = alt;
  copy_.dst = dst;
  copy_.bytes = bytes;
  return alt;
}

float* Compiler::ConcatOut(int y) const {
  for (const auto& [v, p] : concat_out_)
    if (v == y) return p;
  return nullptr;
}

float* Compiler::PlaceInConcat(int v, size_t* stride) {
  if (v < 0 || IsLiveOut(v) || info_.readers[v] != 1 || !LayoutMatters(v)) return nullptr;
  size_t pc = pos_ + 1;
  while (pc < part_.nodes.size() && std::find(NodeAt(pc).inputs.begin(), NodeAt(pc).inputs.end(), v) == NodeAt(pc).inputs.end())
    ++pc;
  if (pc >= part_.nodes.size() || absorbed_[pc]) return nullptr;
  const Node& cat = NodeAt(pc);
  if (cat.op != "Concat" || !cat.domain.empty() || cat.outputs.empty() || cat.outputs[0] < 0) return nullptr;
  const int y = cat.outputs[0];
  Result<int64_t> axis = cat.GetInt("axis", 0);
  if (!axis.ok() || (*axis != 1 && *axis != -3) || !LayoutMatters(y)) return nullptr;
  size_t offset = 0, count = 0;
  for (int in : cat.inputs) {
    if (in < 0 || slots_[in].dtype != DType::kFloat32 || slots_[in].shape.size() != 4) return nullptr;
    if (in == v) {
      if (count++) return nullptr;  // read twice
    } else if (!count) {
      offset += static_cast<size_t>(slots_[in].shape[1]);
    }
  }
  float* base = ConcatOut(y);
  if (!base) {
    if (IsLiveOut(y)) {
      base = Out(y, Layout::kNHWC);  // private; the Concat's Done transposes it into the slot
    } else {
      // y's slot is written from now on: no value read or written by the nodes up to the Concat
      // may share its bytes (their lifetimes may end before y's begins).
      const void* a = slots_[y].data;
      const size_t abytes = slots_[y].nbytes();
      bool clash = false;
      for (size_t p = start_; p < pc && !clash; ++p) {
        for (int w : NodeAt(p).inputs)
          clash = clash || (w >= 0 && w != y && slots_[w].data && Overlap(a, abytes, slots_[w].data, slots_[w].nbytes()));
        for (int w : NodeAt(p).outputs)
          clash = clash || (w >= 0 && w != y && slots_[w].data && Overlap(a, abytes, slots_[w].data, slots_[w].nbytes()));
      }
      const size_t saved = pos_;
      pos_ = pc;  // y's readers come after the Concat
      base = clash ? Relocate(y, abytes) : static_cast<float*>(slots_[y].data);
      pos_ = saved;
      rep_[y].nhwc = base;
    }
    concat_out_.emplace_back(y, base);
  }
  placed_[v] = 1;
  *stride = static_cast<size_t>(slots_[y].shape[1]);
  return base + offset;
}

size_t Compiler::LastReader(int v) const {
  size_t end = pos_;
  for (size_t p = pos_ + 1; p < part_.nodes.size(); ++p)
    for (int in : NodeAt(p).inputs)
      if (in == v) end = p;
  return end;
}

float* Compiler::Relocate(int v, size_t bytes) {
  const size_t end = LastReader(v);
  for (Reloc& r : relocs_)
    if (r.end < start_ && r.bytes >= bytes) {
      r.end = end;
      return r.buf;
    }
  relocs_.push_back({Alloc(bytes / sizeof(float)), bytes, end});
  return relocs_.back().buf;
}

bool Compiler::FirstSlotFree(int first, int last) const {
  // `first`'s slot is free from its producer's step on (the session gave it a lifetime ending at
  // the next node); `last` is read only by nodes of this partition (it is not live out), so only
  // values written by this partition's later nodes, up to the last reader of `last`, could reuse
  // those bytes.
  const size_t end = LastReader(last);
  const void* a = slots_[first].data;
  const size_t abytes = slots_[first].nbytes();
  for (size_t p = pos_ + 1; p <= end; ++p)
    for (int w : NodeAt(p).outputs)
      if (w >= 0 && slots_[w].data && Overlap(a, abytes, slots_[w].data, slots_[w].nbytes())) return false;
  return true;
}

void Compiler::Done(int v) {
  if (copy_.dst) {
    const float* src = copy_.src;
    float* dst = copy_.dst;
    const size_t n = copy_.bytes / sizeof(float);
    ThreadPool* pool = pool_;
    label_ = "[fused output copy] ";
    Add([=] { CopyFloats(src, dst, n, pool); return Status::Ok(); });
    label_.clear();
    copy_.dst = nullptr;
  }
  Rep& r = rep_[v];
  if (!r.pending) return;
  const Shape& s = slots_[v].shape;
  const size_t n = s[0], c = s[1], hw = s[2] * s[3];
  const float* src = r.pending;
  float* dst = static_cast<float*>(slots_[v].data);
  ThreadPool* pool = pool_;
  label_ = "[live-out to NCHW] ";
  Add([=] { NhwcToNchw(src, dst, n, c, hw, pool); return Status::Ok(); });
  label_.clear();
  r.plain = dst;
  r.pending = nullptr;
}

Status Compiler::CompileRef(const Node& n) {
  // Tensors bound now, in plain layouts.
  std::vector<Tensor> ins(n.inputs.size()), outs(n.outputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    ins[i] = slots_[v];
    if (slots_[v].dtype == DType::kFloat32) ins[i].data = const_cast<float*>(In(v, Layout::kPlain));
  }
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const int v = n.outputs[i];
    if (v < 0) continue;
    outs[i] = slots_[v];
    if (slots_[v].dtype == DType::kFloat32) outs[i].data = Out(v, Layout::kPlain);
  }
  TARE_ASSIGN_OR_RETURN(std::function<Status()> step, RefStep(n, std::move(ins), std::move(outs)));
  Add(std::move(step));
  Note(pos_, "reference kernel");
  for (int v : n.outputs)
    if (v >= 0) Done(v);
  return Status::Ok();
}

Result<std::unique_ptr<Executable>> Compiler::Finish(std::shared_ptr<ThreadPool> pool) {
  if (out_of_memory_) return Status::Error("cpu backend: out of memory allocating private buffers");
  return std::unique_ptr<Executable>(
      new CpuExecutable(std::move(steps_), std::move(labels_), std::move(buffers_), std::move(ops_), std::move(pool), std::move(notes_)));
}

}  // namespace tare::cpu
