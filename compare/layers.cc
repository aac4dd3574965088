#include "compare/layers.h"

#include "compare/align.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <algorithm>

namespace tare {
namespace {

bool Skipped(const std::string& where) { return where == "folded" || where == "unused"; }

// |t| (or -|t| with `negate`) for float tensors; others as they are.
Result<Tensor> Absolute(const Tensor& t, bool negate = false) {
  if (!t.is_tensor() || !t.data || !(DTypeIsFloat(t.dtype) || t.dtype == DType::kBFloat16)) return t;
  TARE_ASSIGN_OR_RETURN(Tensor a, ConvertTensor(t, DType::kFloat64));
  Tensor c;
  TARE_ASSIGN_OR_RETURN(c, Tensor::Alloc(DType::kFloat64, a.shape));
  for (int64_t i = 0; i < a.numel(); ++i) c.as<double>()[i] = negate ? -std::fabs(a.as<double>()[i]) : std::fabs(a.as<double>()[i]);
  return ConvertTensor(c, t.dtype);
}

// Runs a one-node model on `backend`: its outputs (graph order) and the node's placement.
Result<std::vector<Tensor>> RunAlone(const OneNodeModel& m, const std::string& backend, std::string* placement) {
  SessionOptions o;
  o.backends = {backend};
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(m.graph, o));
  std::vector<NamedTensor> out;
  TARE_RETURN_IF_ERROR(s->Run(m.inputs, &out));
  if (placement) {
    const auto p = s->Placement();
    *placement = p.empty() ? "?" : p[0].second;
  }
  std::vector<Tensor> t;
  for (NamedTensor& o : out) t.push_back(std::move(o.tensor));
  return t;
}

// m with every subnormal float32 input value (weights included) made 0 (a signed zero), or nullopt
// when m has none: what a backend that treats subnormal inputs as zero (DAZ) computes from.
std::optional<OneNodeModel> Flushed(const OneNodeModel& m) {
  auto flush = [](Tensor* t) {
    if (!t->is_tensor() || !t->data || t->dtype != DType::kFloat32) return false;
    bool any = false;
    for (int64_t i = 0; i < t->numel(); ++i) {
      float& v = t->as<float>()[i];
      if (v != 0 && std::fpclassify(v) == FP_SUBNORMAL) {
        any = true;
        v = std::signbit(v) ? -0.0f : 0.0f;
      }
    }
    return any;
  };
  OneNodeModel f;
  f.graph = std::make_shared<Graph>(*m.graph);
  bool any = false;
  for (Value& v : f.graph->values)
    if (v.is_constant && v.constant.dtype == DType::kFloat32) {
      Result<Tensor> copy = ConvertTensor(v.constant, DType::kFloat32);  // a private copy
      if (!copy.ok()) continue;
      v.constant = *copy;
      any = flush(&v.constant) || any;
    }
  for (const NamedTensor& in : m.inputs) {
    NamedTensor c{in.name, in.tensor};
    if (c.tensor.is_tensor() && c.tensor.dtype == DType::kFloat32) {
      Result<Tensor> copy = ConvertTensor(in.tensor, DType::kFloat32);
      if (copy.ok()) c.tensor = *copy;
      any = flush(&c.tensor) || any;
    }
    f.inputs.push_back(c);
  }
  if (!any) return std::nullopt;
  return f;
}

// The worst comparison of a node's outputs (tensors only).
std::optional<Metrics> WorstOf(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  std::optional<Metrics> worst;
  for (size_t o = 0; o < got.size() && o < want.size(); ++o) {
    if (!got[o].is_tensor() || !want[o].is_tensor() || got[o].dtype == DType::kString) continue;
    Result<Metrics> m = CompareTensors(got[o], want[o]);
    if (m.ok() && (!worst || m->rel_l2 > worst->rel_l2 || std::isnan(m->rel_l2))) worst = *m;
  }
  return worst;
}

// Runs the model on `reference` with `pins`; the worst distance of its outputs from ref64's.
Result<Metrics> Probe(const std::shared_ptr<Model>& model, const std::string& reference,
                      const std::vector<std::pair<std::string, std::string>>& pins, const std::vector<NamedTensor>& inputs,
                      const std::vector<NamedTensor>& ref64_outputs) {
  TARE_ASSIGN_OR_RETURN(auto quant, QuantByName(model->graph));
  SessionOptions o;
  o.backends = {reference};
  o.pins = pins;
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, Session::Create(std::shared_ptr<const Graph>(model, &model->graph), o));
  std::vector<NamedTensor> out;
  TARE_RETURN_IF_ERROR(s->Run(inputs, &out));
  for (NamedTensor& t : out) TARE_RETURN_IF_ERROR(ToReal(quant, t.name, &t.tensor));
  std::string which;
  return WorstOutput(out, ref64_outputs, &which);
}

}  // namespace

std::vector<BackendLayers> ModelLayers(const ModelRuns& mr, bool quantized, bool isolated) {
  const Graph& g = mr.model->graph;
  const BackendRun& r64 = mr.runs[0];
  std::vector<BackendLayers> out;
  for (size_t i = 1; i < mr.runs.size(); ++i) {
    const BackendRun& r = mr.runs[i];
    BackendLayers l = ChainedLayers(g, r.backend, r.values, r.placement, r64.values);
    if (!isolated) {
      for (NodeDistance& d : l.nodes) d.isolated_error = "not run (--no-isolated)";
    } else if (quantized) {
      for (NodeDistance& d : l.nodes) d.isolated_error = "not run: a quantized model (its integer ops take codes, ref64 real values)";
    } else {
      IsolateNodes(g, r64.values, r.values, KnownValues(g, r.placement), &l);
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::map<std::string, bool> KnownValues(const Graph& graph, const std::vector<std::pair<std::string, std::string>>& placement) {
  std::map<std::string, bool> known;
  for (const Value& v : graph.values)
    if (v.is_constant) known[v.name] = true;
  for (size_t i = 0; i < placement.size() && i < graph.nodes.size(); ++i)
    if (placement[i].second == "folded")
      for (int o : graph.nodes[i].outputs)
        if (o >= 0) known[graph.values[static_cast<size_t>(o)].name] = true;
  return known;
}

BackendLayers ChainedLayers(const Graph& graph, const std::string& backend, const std::map<std::string, Tensor>& run,
                            const std::vector<std::pair<std::string, std::string>>& placement,
                            const std::map<std::string, Tensor>& ref64) {
  BackendLayers out;
  out.backend = backend;
  for (size_t i = 0; i < graph.nodes.size() && i < placement.size(); ++i) {
    const Node& n = graph.nodes[i];
    if (Skipped(placement[i].second)) continue;
    NodeDistance d;
    d.node = static_cast<int>(i);
    d.name = n.name;
    d.op = n.op;
    d.placement = placement[i].second;
    const int v = n.outputs.empty() ? -1 : n.outputs[0];
    if (v >= 0) d.value = graph.values[static_cast<size_t>(v)].name;
    auto a = run.find(d.value), b = ref64.find(d.value);
    if (v < 0 || a == run.end() || b == ref64.end()) {
      d.chained_error = "not traced";
    } else if (!a->second.is_tensor() || a->second.dtype == DType::kString) {
      d.chained_error = std::string("a ") + (a->second.is_tensor() ? "string tensor" : ValueKindName(a->second.kind)) + ", not compared";
    } else {
      Result<Metrics> m = CompareTensors(a->second, b->second);
      if (m.ok()) d.chained = *m;
      else d.chained_error = m.status().message();
    }
    out.nodes.push_back(std::move(d));
  }
  return out;
}

std::map<std::string, Tensor> PeerValuesInTareLayout(const std::map<std::string, Tensor>& peer,
                                                     const std::map<std::string, Tensor>& ref64, int* transposed) {
  std::map<std::string, Tensor> out;
  *transposed = 0;
  const std::string suffix = "/nhwc";
  for (const auto& [name, t64] : ref64) {
    if (!t64.is_tensor()) continue;
    auto it = peer.find(name);
    if (it == peer.end() && name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      it = peer.find(name.substr(0, name.size() - suffix.size()));
    if (it == peer.end() || !it->second.is_tensor()) continue;
    const Tensor& p = it->second;
    if (p.shape == t64.shape && NhwcOf(t64.shape, p.shape)) {
      // [N,C,C,C]: either layout fits the shape; the data decide (the wrong order is ~1 rel L2 away).
      Result<Tensor> nchw = NchwOf(p);
      Result<Tensor> typed = nchw.ok() ? ConvertTensor(*nchw, p.dtype) : nchw.status();
      Result<Metrics> as_is = CompareTensors(p, t64);
      Result<Metrics> swapped = typed.ok() ? CompareTensors(*typed, t64) : typed.status();
      if (swapped.ok() && (!as_is.ok() || swapped->rel_l2 < as_is->rel_l2)) {
        out.emplace(name, std::move(typed).value());
        ++*transposed;
      } else {
        out.emplace(name, p);
      }
    } else if (p.shape == t64.shape) {
      out.emplace(name, p);
    } else if (NhwcOf(t64.shape, p.shape)) {
      Result<Tensor> nchw = NchwOf(p);
      if (!nchw.ok()) continue;
      Result<Tensor> typed = ConvertTensor(*nchw, p.dtype);
      if (!typed.ok()) continue;
      out.emplace(name, std::move(typed).value());
      ++*transposed;
    }
  }
  return out;
}

Departure FirstDeparture(const BackendLayers& peer, const std::vector<BackendLayers>& backends) {
  Departure d;
  d.peer = peer.backend;
  std::map<int, double> floor;  // node -> the largest rel L2 of tare's backends there
  for (const BackendLayers& b : backends)
    for (const NodeDistance& n : b.nodes)
      if (n.chained && std::isfinite(n.chained->rel_l2)) floor[n.node] = std::max(floor[n.node], n.chained->rel_l2);
  constexpr double kUnitRoundoff = 0x1p-24;
  double worst = -1, worst_rel = 0, worst_floor = 0;
  for (const NodeDistance& n : peer.nodes) {
    if (!n.chained) continue;
    ++d.compared;
    const double f = std::max(floor.count(n.node) ? floor[n.node] : 0.0, kUnitRoundoff);
    const double ratio = n.chained->rel_l2 / f;
    if (std::isnan(ratio) || ratio > kDepartureFactor) {
      d.found = true;
      d.node = n.node;
      d.name = n.name;
      d.op = n.op;
      d.rel_l2 = n.chained->rel_l2;
      d.floor = f;
      d.ratio = ratio;
      d.text = peer.backend + " leaves ref64 at node '" + n.name + "' (" + n.op + "): rel L2 " + Sci(d.rel_l2) + ", " + Sci(ratio) +
               " times the layer's noise floor " + Sci(f) + " (tare's backends there)";
      return d;
    }
    if (ratio > worst) {
      worst = ratio;
      d.worst_node = n.name;
      worst_rel = n.chained->rel_l2;
      worst_floor = f;
    }
  }
  d.ratio = std::max(worst, 0.0);
  d.rel_l2 = worst_rel;
  d.floor = worst_floor;
  d.text = peer.backend + ": every one of " + std::to_string(d.compared) + " compared layers within " + std::to_string(static_cast<int>(kDepartureFactor)) +
           " times tare's noise floor" + (d.worst_node.empty() ? "" : " (at most " + Sci(d.ratio) + ", at node '" + d.worst_node + "')");
  return d;
}

Result<OneNodeModel> MakeOneNodeModel(const Graph& graph, int node, const std::map<std::string, Tensor>& values,
                                      const std::map<std::string, Tensor>& types, const std::map<std::string, bool>& known,
                                      const std::vector<char>& abs_inputs, bool abs_attrs) {
  const Node& n = graph.nodes[static_cast<size_t>(node)];
  OneNodeModel m;
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  Node copy = n;
  if (abs_attrs)
    for (auto& [name, a] : copy.attrs)
      if (a.kind == Attr::Kind::kFloat) a.f = std::fabs(a.f);
  std::map<int, int> remap;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    if (v < 0) continue;
    const char make_abs = i < abs_inputs.size() ? abs_inputs[i] : 0;
    if (auto it = remap.find(v); it != remap.end()) {  // the same value twice (Mul(x, x)): one input
      copy.inputs[i] = it->second;
      continue;
    }
    const Value& src = graph.values[static_cast<size_t>(v)];
    Tensor t;
    if (src.is_constant) {
      t = src.constant;
    } else {
      auto f = values.find(src.name);
      if (f == values.end()) return Status::Error(n.Where() + ": input '" + src.name + "' was not traced");
      t = f->second;
    }
    if (!t.is_tensor()) return Status::Error(n.Where() + ": input '" + src.name + "' is a " + ValueKindName(t.kind));
    if (auto ty = types.find(src.name); ty != types.end() && ty->second.is_tensor() && ty->second.dtype != t.dtype &&
                                        t.dtype != DType::kString) {
      TARE_ASSIGN_OR_RETURN(t, ConvertTensor(t, ty->second.dtype));
    }
    if (make_abs) {
      TARE_ASSIGN_OR_RETURN(t, Absolute(t, make_abs == 2));
    }
    Value nv;
    nv.name = src.name;
    nv.dtype = t.dtype;
    nv.shape = t.shape;
    nv.has_shape = true;
    const bool is_known = src.is_constant || (known.count(src.name) && known.at(src.name));
    if (is_known) {
      nv.is_constant = true;
      nv.constant = t;
    }
    const int id = static_cast<int>(g.values.size());
    g.values.push_back(nv);
    if (!is_known) {
      g.inputs.push_back(id);
      m.inputs.push_back({nv.name, t});
    }
    remap[v] = id;
    copy.inputs[i] = id;
  }
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    const int v = n.outputs[o];
    if (v < 0) continue;
    const Value& src = graph.values[static_cast<size_t>(v)];
    if (src.kind != ValueKind::kTensor) return Status::Error(n.Where() + ": output '" + src.name + "' is a " + ValueKindName(src.kind));
    Value nv;
    nv.name = src.name;
    nv.dtype = src.dtype;
    if (auto ty = types.find(src.name); ty != types.end() && ty->second.is_tensor()) nv.dtype = ty->second.dtype;
    if (auto v = values.find(src.name); v != values.end() && v->second.is_tensor()) {
      nv.shape = v->second.shape;  // the traced shape: a file written from this graph declares it
      nv.has_shape = true;
    }
    const int id = static_cast<int>(g.values.size());
    g.values.push_back(nv);
    g.outputs.push_back(id);
    copy.outputs[o] = id;
  }
  g.nodes.push_back(std::move(copy));
  TARE_RETURN_IF_ERROR(g.Validate());
  return m;
}

void IsolateNodes(const Graph& graph, const std::map<std::string, Tensor>& values64, const std::map<std::string, Tensor>& types,
                  const std::map<std::string, bool>& known, BackendLayers* layers) {
  for (NodeDistance& d : layers->nodes) {
    const Node& n = graph.nodes[static_cast<size_t>(d.node)];
    Result<OneNodeModel> m = MakeOneNodeModel(graph, d.node, values64, types, known);
    if (!m.ok()) {
      d.isolated_error = m.status().message();
      continue;
    }
    Result<std::vector<Tensor>> got = RunAlone(*m, layers->backend, &d.isolated_placement);
    Result<std::vector<Tensor>> want = got.ok() ? RunAlone(*m, "ref64", nullptr) : got.status();
    if (!want.ok()) {
      d.isolated_error = want.status().message();
      continue;
    }
    const BudgetPlan plan = PlanBudget(n, n.inputs.size());
    std::vector<Tensor> scale;
    if (plan.scale == BudgetScale::kAbsInputs) {
      Result<OneNodeModel> ma = MakeOneNodeModel(graph, d.node, values64, types, known, plan.abs_inputs, plan.abs_attrs);
      Result<std::vector<Tensor>> s = ma.ok() ? RunAlone(*ma, "ref64", nullptr) : ma.status();
      if (!s.ok()) {
        d.isolated_error = "the budget's scale (the node on |inputs|): " + s.status().message();
        continue;
      }
      scale = std::move(s).value();
    }
    std::vector<Tensor> fed;
    for (size_t i = 0; i < m->graph->nodes[0].inputs.size(); ++i) {
      const int v = m->graph->nodes[0].inputs[i];
      if (v < 0) {
        fed.emplace_back();
        continue;
      }
      const Value& val = m->graph->values[static_cast<size_t>(v)];
      Tensor t = val.is_constant ? val.constant : Tensor();
      for (const NamedTensor& in : m->inputs)
        if (in.name == val.name) t = in.tensor;
      fed.push_back(t);
    }
    Result<BudgetCheck> c = CheckBudget(graph, n, fed, *got, *want, scale);
    if (!c.ok()) {
      d.isolated_error = c.status().message();
      continue;
    }
    // A backend may treat subnormal inputs as zero (XNNPACK runs with DAZ and FTZ): over budget
    // against ref64 on the inputs as given, the node is checked again against ref64 on them with
    // every subnormal value zeroed, and the smaller ratio counts.
    if (c->evaluated && c->ratio > 1) {
      if (std::optional<OneNodeModel> fm = Flushed(*m)) {
        Result<std::vector<Tensor>> want_daz = RunAlone(*fm, "ref64", nullptr);
        if (want_daz.ok()) {
          Result<BudgetCheck> cd = CheckBudget(graph, n, fed, *got, *want_daz, scale);
          if (cd.ok() && cd->evaluated && cd->ratio < c->ratio) c = cd;
        }
      }
    }
    d.isolated = *c;
    d.isolated_metrics = WorstOf(*got, *want);
    if (!c->evaluated) continue;
    ++layers->isolated;
    if (c->ratio > 1) ++layers->over_budget;
    if (layers->worst_node.empty() || c->ratio > layers->worst_ratio) {
      layers->worst_ratio = c->ratio;
      layers->worst_node = d.name;
    }
  }
}

Result<Bisection> BisectBackend(const std::shared_ptr<Model>& model, const std::string& backend, const std::vector<NamedTensor>& inputs,
                                const std::vector<NamedTensor>& ref64_outputs, const std::map<std::string, Tensor>& values64,
                                const std::vector<std::pair<std::string, std::string>>& placement,
                                const std::map<std::string, Tensor>& types, double threshold) {
  const Graph& g = model->graph;
  Bisection b;
  b.backend = backend;
  b.threshold = threshold;
  TARE_ASSIGN_OR_RETURN(std::unique_ptr<Backend> be, CreateBackend(backend));
  b.reference = be->float_storage() == DType::kFloat64 ? "ref64" : "ref";
  std::vector<int> cand;
  for (size_t i = 0; i < placement.size() && i < g.nodes.size(); ++i)
    if (placement[i].second == backend) cand.push_back(static_cast<int>(i));
  b.candidates = static_cast<int>(cand.size());
  auto pins = [&](size_t k) {
    std::vector<std::pair<std::string, std::string>> p;
    for (size_t i = 0; i < k; ++i) p.emplace_back(g.nodes[static_cast<size_t>(cand[i])].name, backend);
    return p;
  };
  TARE_ASSIGN_OR_RETURN(b.backend_vs_ref64, Probe(model, b.reference, pins(cand.size()), inputs, ref64_outputs));
  TARE_ASSIGN_OR_RETURN(b.reference_vs_ref64, Probe(model, b.reference, {}, inputs, ref64_outputs));
  b.probes = 2;
  if (Within(b.backend_vs_ref64, threshold)) {
    b.verdict = "within threshold";
    b.text = backend + ": outputs within the bisection threshold of ref64 (rel L2 " + Sci(b.backend_vs_ref64.rel_l2) + " <= " +
             Sci(threshold) + "), nothing to bisect";
    return b;
  }
  if (!Within(b.reference_vs_ref64, threshold)) {
    b.verdict = "reference beyond threshold";
    b.text = backend + ": not bisected: " + b.reference + " alone is already " + Sci(b.reference_vs_ref64.rel_l2) +
             " from ref64, beyond the threshold " + Sci(threshold) + " (raise --bisect-threshold)";
    return b;
  }
  // Invariant: pinning the first lo nodes stays within, the first hi goes beyond.
  size_t lo = 0, hi = cand.size();
  Metrics at_lo = b.reference_vs_ref64, at_hi = b.backend_vs_ref64;
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    TARE_ASSIGN_OR_RETURN(Metrics m, Probe(model, b.reference, pins(mid), inputs, ref64_outputs));
    ++b.probes;
    if (Within(m, threshold)) lo = mid, at_lo = m;
    else hi = mid, at_hi = m;
  }
  if (hi == 0) {
    b.verdict = "not found";
    b.text = backend + ": outputs beyond the threshold but no node of it to pin";
    return b;
  }
  const int node = cand[hi - 1];
  const Node& n = g.nodes[static_cast<size_t>(node)];
  b.verdict = "found";
  b.node = node;
  b.name = n.name;
  b.op = n.op;
  b.attributes = NodeAttrs(n);
  b.with_node = at_hi;
  b.before_node = at_lo;
  for (int v : n.inputs)
    if (v >= 0) {
      const Value& val = g.values[static_cast<size_t>(v)];
      auto it = values64.find(val.name);
      b.input_shapes.push_back(val.is_constant ? val.constant.shape : it != values64.end() ? it->second.shape : val.shape);
    }
  // The node alone, on ref64's inputs (isolated mode), and that one-node model as the reproducer.
  BackendLayers one;
  one.backend = backend;
  NodeDistance d;
  d.node = node;
  d.name = n.name;
  one.nodes.push_back(d);
  const std::map<std::string, bool> known = KnownValues(g, placement);
  IsolateNodes(g, values64, types, known, &one);
  if (one.nodes[0].isolated) b.isolated = one.nodes[0].isolated;
  Result<OneNodeModel> repro = MakeOneNodeModel(g, node, values64, types, known);
  if (repro.ok()) b.reproducer = std::move(repro).value();
  std::string shapes;
  for (const Shape& s : b.input_shapes) shapes += (shapes.empty() ? "" : ", ") + ShapeStr(s);
  b.text = backend + ": first node beyond the threshold " + Sci(threshold) + ": '" + n.name + "' (" + n.op + ", inputs " + shapes +
           ", attributes {" + b.attributes + "}): with it on " + backend + " the outputs are " + Sci(at_hi.rel_l2) +
           " from ref64, without it " + Sci(at_lo.rel_l2) + " (" + std::to_string(b.probes) + " runs)";
  if (b.isolated && b.isolated->evaluated)
    b.text += "; alone on ref64's inputs its error is " + Sci(b.isolated->ratio) + " times its budget" +
              (b.isolated->ratio > 1 ? ": a kernel bug" : " (within: the error is the model's sensitivity, not the kernel's)");
  else if (!one.nodes[0].isolated_error.empty())
    b.text += "; not run alone: " + one.nodes[0].isolated_error;
  return b;
}

}  // namespace tare
