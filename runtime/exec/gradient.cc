// Reference kernel of Gradient (semantics: runtime/ops/gradient.cc): runs the forward graph
// keeping every value, then propagates d sum(y) backwards node by node in double (the result is
// rounded once to T). Broadcast operands get their gradient summed over the broadcast axes.
#include <cmath>
#include <map>

#include "runtime/exec/eval_node.h"

namespace tare {
namespace {

// A value in double with its shape.
struct D {
  Shape shape;
  std::vector<double> v;
};

D ToD(const Tensor& t) {
  D d{t.shape, std::vector<double>(static_cast<size_t>(t.numel()))};
  for (size_t i = 0; i < d.v.size(); ++i) d.v[i] = ReadDouble(t, static_cast<int64_t>(i));
  return d;
}

// Offset in a tensor of shape `in` (broadcast to `out`) of the element at flat position p of `out`.
int64_t BroadcastOffset(const Shape& out, const Shape& in, int64_t p) {
  int64_t off = 0, stride = 1;
  for (size_t k = 0; k < out.size(); ++k) {
    const size_t d = out.size() - 1 - k;
    const int64_t idx = p % out[d];
    p /= out[d];
    if (k < in.size()) {
      const int64_t id = in[in.size() - 1 - k];
      if (id != 1) off += idx * stride;
      stride *= id;
    }
  }
  return off;
}

// Adds g (shape out) into acc (shape in), summing over broadcast axes.
void Accumulate(D& acc, const Shape& out, const std::vector<double>& g) {
  for (size_t p = 0; p < g.size(); ++p) acc.v[static_cast<size_t>(BroadcastOffset(out, acc.shape, static_cast<int64_t>(p)))] += g[p];
}

}  // namespace

template <class T>
Result<KernelFn> MakeGradient(const Node& node) {
  auto it = node.attrs.find("tare.forward");
  if (it == node.attrs.end() || !it->second.graph) return Status::Error(node.Where() + ": the forward graph is missing");
  const DType compute = std::is_same_v<T, double> ? DType::kFloat64 : DType::kFloat32;
  const Graph& fg = *it->second.graph;
  for (const Node& n : fg.nodes) {
    static const char* kOps[] = {"Add", "Sub", "Mul", "Div", "Neg", "Identity", "Relu"};
    bool ok = false;
    for (const char* op : kOps) ok = ok || (n.op == op && n.domain.empty());
    if (!ok) return Status::Error(node.Where() + ": no derivative for " + n.Where() + " on the path to y");
  }
  Result<std::unique_ptr<GraphEvaluator>> made = GraphEvaluator::Create(it->second.graph, compute);
  if (!made.ok()) return Status::Error(node.Where() + ": forward graph: " + made.status().message());
  std::shared_ptr<GraphEvaluator> fwd = std::move(made).value();
  return KernelFn([fwd](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) -> Status {
    const Graph& g = fwd->graph();
    std::vector<Tensor> args;
    for (const Tensor* t : in) args.push_back(*t);
    std::vector<Tensor> vals;
    TARE_RETURN_IF_ERROR(fwd->Run(args, &vals).status());
    std::map<int, D> grad;
    const int y = g.outputs[0];
    grad[y] = D{vals[y].shape, std::vector<double>(static_cast<size_t>(vals[y].numel()), 1.0)};
    auto acc = [&](int v, const Shape& out_shape, const std::vector<double>& gv) {
      auto f = grad.find(v);
      if (f == grad.end()) f = grad.emplace(v, D{vals[v].shape, std::vector<double>(static_cast<size_t>(vals[v].numel()), 0.0)}).first;
      Accumulate(f->second, out_shape, gv);
    };
    for (size_t ni = g.nodes.size(); ni-- > 0;) {
      const Node& n = g.nodes[ni];
      auto gy = grad.find(n.outputs[0]);
      if (gy == grad.end()) continue;
      const D go = gy->second;  // copy: acc may rehash nothing (std::map), but keep it simple
      const Shape& os = go.shape;
      const size_t m = go.v.size();
      if (n.op == "Identity" || n.op == "Neg" || n.op == "Relu") {
        D x = ToD(vals[n.inputs[0]]);
        std::vector<double> gx(m);
        for (size_t p = 0; p < m; ++p)
          gx[p] = n.op == "Neg" ? -go.v[p] : n.op == "Relu" ? (x.v[p] > 0 ? go.v[p] : 0.0) : go.v[p];
        acc(n.inputs[0], os, gx);
        continue;
      }
      D a = ToD(vals[n.inputs[0]]), b = ToD(vals[n.inputs[1]]);
      std::vector<double> ga(m), gb(m);
      for (size_t p = 0; p < m; ++p) {
        const double av = a.v[static_cast<size_t>(BroadcastOffset(os, a.shape, static_cast<int64_t>(p)))];
        const double bv = b.v[static_cast<size_t>(BroadcastOffset(os, b.shape, static_cast<int64_t>(p)))];
        const double gp = go.v[p];
        if (n.op == "Add") { ga[p] = gp; gb[p] = gp; }
        else if (n.op == "Sub") { ga[p] = gp; gb[p] = -gp; }
        else if (n.op == "Mul") { ga[p] = gp * bv; gb[p] = gp * av; }
        else { ga[p] = gp / bv; gb[p] = -gp * av / (bv * bv); }  // Div
      }
      acc(n.inputs[0], os, ga);
      acc(n.inputs[1], os, gb);
    }
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i]) continue;
      auto f = grad.find(g.inputs[i]);
      for (int64_t p = 0; p < out[i]->numel(); ++p)
        out[i]->as<T>()[p] = f == grad.end() ? T(0) : static_cast<T>(f->second.v[static_cast<size_t>(p)]);
    }
    return Status::Ok();
  });
}

TARE_INSTANTIATE_REF(Gradient)

}  // namespace tare
