#include "compare/dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <zlib.h>

#include "format/npy.h"

namespace fs = std::filesystem;

namespace tare {

Result<std::vector<uint8_t>> ReadIdx(const std::string& path, int dims, Shape* shape) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return Status::Error("cannot open '" + path + "'");
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    data.insert(data.end(), buf, buf + n);
    if (data.size() > (size_t(1) << 31)) { gzclose(f); return Status::Error("'" + path + "' is too large"); }
  }
  gzclose(f);
  const size_t header = 4 + 4 * static_cast<size_t>(dims);
  if (n < 0 || data.size() < header || data[0] || data[1] || data[2] != 8 || data[3] != dims)
    return Status::Error("'" + path + "' is not an IDX file of " + std::to_string(dims) + " uint8 dims");
  shape->clear();
  size_t count = 1;
  for (int d = 0; d < dims; ++d) {
    const uint8_t* p = data.data() + 4 + 4 * d;
    shape->push_back((int64_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3]);
    count *= static_cast<size_t>(shape->back());
  }
  if (data.size() != header + count) return Status::Error("'" + path + "' has the wrong size for its dims");
  return std::vector<uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(header), data.end());
}

Result<DataSet> LoadDataSet(const std::string& spec) {
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return Status::Error("--dataset must be fashion-mnist:DIR or npy:DIR, got '" + spec + "'");
  const std::string kind = spec.substr(0, colon), dir = spec.substr(colon + 1);
  DataSet ds;
  if (kind == "fashion-mnist") {
    auto file = [&](const std::string& base) {
      std::string p = (fs::path(dir) / base).string();
      return fs::exists(p + ".gz") ? p + ".gz" : p;
    };
    Shape is, ls;
    TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> px, ReadIdx(file("t10k-images-idx3-ubyte"), 3, &is));
    TARE_ASSIGN_OR_RETURN(std::vector<uint8_t> lb, ReadIdx(file("t10k-labels-idx1-ubyte"), 1, &ls));
    if (is[0] != ls[0]) return Status::Error("images and labels differ in count");
    TARE_ASSIGN_OR_RETURN(ds.items, Tensor::Alloc(DType::kFloat32, {is[0], 1, is[1], is[2]}));
    for (size_t i = 0; i < px.size(); ++i) ds.items.as<float>()[i] = static_cast<float>(px[i]) / 255.0f;
    ds.labels.assign(lb.begin(), lb.end());
    return ds;
  }
  if (kind == "npy") {
    TARE_ASSIGN_OR_RETURN(ds.items, ReadNpy((fs::path(dir) / "items.npy").string()));
    TARE_ASSIGN_OR_RETURN(Tensor labels, ReadNpy((fs::path(dir) / "labels.npy").string()));
    if (ds.items.dtype != DType::kFloat32 || ds.items.shape.empty()) return Status::Error("items.npy must be float32 [N, ...]");
    if (labels.shape.size() != 1 || labels.shape[0] != ds.items.shape[0] || DTypeIsFloat(labels.dtype))
      return Status::Error("labels.npy must hold N integers");
    for (int64_t i = 0; i < labels.numel(); ++i) ds.labels.push_back(ReadInt(labels, i));
    return ds;
  }
  return Status::Error("unknown data set kind '" + kind + "' (fashion-mnist or npy)");
}

Tensor MakeBatch(const DataSet& ds, int64_t start, const Shape& shape) {
  Tensor x = Tensor::Alloc(DType::kFloat32, shape).value();
  std::memset(x.data, 0, x.nbytes());
  const int64_t items = ds.items.shape[0], elems = ds.items.numel() / items;
  const int64_t take = std::max<int64_t>(0, std::min(shape[0], items - start));
  if (take > 0)
    std::memcpy(x.data, ds.items.as<float>() + start * elems, static_cast<size_t>(take * elems) * sizeof(float));
  return x;
}

int64_t Argmax(const Tensor& t, int64_t row, int64_t classes, double* margin) {
  int64_t best = 0;
  for (int64_t c = 1; c < classes; ++c)
    if (ReadDouble(t, row * classes + c) > ReadDouble(t, row * classes + best)) best = c;
  if (margin) {
    double second = -INFINITY;
    for (int64_t c = 0; c < classes; ++c)
      if (c != best) second = std::max(second, ReadDouble(t, row * classes + c));
    *margin = classes > 1 ? ReadDouble(t, row * classes + best) - second : 0;
  }
  return best;
}

Result<DsModel> PrepareDsModel(std::shared_ptr<Model> model, const std::string& label, const DataSet& ds) {
  DsModel dm;
  dm.model = std::move(model);
  dm.label = label;
  const Graph& g = dm.model->graph;
  if (g.inputs.size() != 1 || g.outputs.empty()) return Status::Error(dm.label + ": data-set mode needs models with one input and an output");
  const Value& in = g.values[static_cast<size_t>(g.inputs[0])];
  dm.input = in.name;
  dm.batch = in.has_shape && !in.shape.empty() && in.shape[0] > 0 ? in.shape[0] : 1;
  dm.batch_shape = ds.items.shape;
  dm.batch_shape[0] = dm.batch;
  return dm;
}

Result<Tensor> ReadFrameworkLogits(const Framework& f, const std::string& file, int64_t n) {
  Result<Tensor> t = ReadNpy((fs::path(f.dir) / file).string());
  if (!t.ok()) return Status::Error("--expect " + f.label + ": " + t.status().message());
  if (t->shape.size() != 2 || t->shape[0] < n || t->shape[1] < 2 || !DTypeIsFloat(t->dtype))
    return Status::Error("--expect " + f.label + ": " + file + " must be floating-point [N, classes] with N >= " + std::to_string(n) +
                         " and at least 2 classes, got " + DTypeName(t->dtype) + " of rank " + std::to_string(t->shape.size()));
  return t;
}

void PredictRow(const Tensor& y, int64_t row, int64_t classes, RunPred* rp) {
  double margin = 0;
  bool nan = false;
  for (int64_t c = 0; c < classes; ++c) nan = nan || std::isnan(ReadDouble(y, row * classes + c));
  rp->pred.push_back(nan ? -1 : Argmax(y, row, classes, &margin));
  rp->margin.push_back(nan ? NAN : margin);
}

Result<RunPred> PredictOnBackend(const DsModel& dm, size_t model, const std::string& backend, const DataSet& ds, int64_t n,
                                 const std::function<void(int64_t done)>& progress, int64_t* classes) {
  const std::string where = dm.label + " on " + backend + ": ";
  SessionOptions o;
  o.backends = {backend};
  Result<std::unique_ptr<Session>> s = Session::Create(std::shared_ptr<const Graph>(dm.model, &dm.model->graph), o);
  if (!s.ok()) return Status::Error(where + s.status().message());
  RunPred rp{dm.label + " " + backend, backend, model, {}, {}};
  for (int64_t start = 0; start < n; start += dm.batch) {
    std::vector<NamedTensor> out;
    Status st = (*s)->Run({{dm.input, MakeBatch(ds, start, dm.batch_shape)}}, &out);
    if (!st.ok()) return Status::Error(where + st.message());
    const Tensor& y = out[0].tensor;
    if (!y.is_tensor() || y.shape.size() != 2 || y.shape[0] != dm.batch || y.shape[1] < 2 || !DTypeIsFloat(y.dtype))
      return Status::Error(dm.label + ": output '" + out[0].name + "' must be floating-point [batch, classes] with at least 2 classes, got " +
                           DTypeName(y.dtype) + " " + ShapeStr(y.shape));
    *classes = y.shape[1];
    for (int64_t r = 0; r < dm.batch && start + r < n; ++r) PredictRow(y, r, *classes, &rp);
    const int64_t done = std::min(n, start + dm.batch);
    if (progress && (done / 100 != start / 100 || done == n)) progress(done);
  }
  return rp;
}

Result<RunPred> PredictFramework(const Framework& f, const Tensor& logits, size_t model, int64_t n, int64_t classes) {
  if (logits.shape[1] != classes)
    return Status::Error("--expect " + f.label + ": " + std::to_string(logits.shape[1]) + " classes, the model's output has " +
                         std::to_string(classes));
  RunPred rp{f.label, "framework", model, {}, {}};
  for (int64_t r = 0; r < n; ++r) PredictRow(logits, r, classes, &rp);
  return rp;
}

Result<std::vector<RunPred>> PredictAll(const std::vector<DsModel>& models, const std::vector<std::string>& backends,
                                        const std::vector<std::vector<Framework>>& frameworks,
                                        const std::vector<std::vector<Tensor>>& logits, const DataSet& ds, int64_t n,
                                        const std::function<void(const std::string& label, int64_t done)>& progress) {
  std::vector<RunPred> runs;
  for (size_t mi = 0; mi < models.size(); ++mi) {
    int64_t classes = -1;
    for (const std::string& backend : backends) {
      const std::string label = models[mi].label + " " + backend;
      std::function<void(int64_t)> show;
      if (progress) show = [&](int64_t done) { progress(label, done); };
      TARE_ASSIGN_OR_RETURN(RunPred rp, PredictOnBackend(models[mi], mi, backend, ds, n, show, &classes));
      runs.push_back(std::move(rp));
    }
    for (size_t fi = 0; fi < logits[mi].size(); ++fi) {
      TARE_ASSIGN_OR_RETURN(RunPred rp, PredictFramework(frameworks[mi][fi], logits[mi][fi], mi, n, classes));
      runs.push_back(std::move(rp));
    }
  }
  return runs;
}

Accuracy AccuracyOf(const RunPred& r, const DataSet& ds, int64_t n) {
  Accuracy a;
  for (int64_t i = 0; i < n; ++i) {
    a.correct += r.pred[static_cast<size_t>(i)] == ds.labels[static_cast<size_t>(i)];
    a.nan += r.pred[static_cast<size_t>(i)] < 0;
  }
  a.accuracy = static_cast<double>(a.correct) / static_cast<double>(n);
  return a;
}

FlipAttributor::FlipAttributor(const std::vector<DsModel>& models, const DataSet& ds, double threshold)
    : models_(models), ds_(ds), threshold_(threshold) {
  for (const DsModel& dm : models_) quantized_.push_back(HasTfliteQuantOps(dm.model->graph));
}

Result<std::string> FlipAttributor::operator()(const RunPred& ra, const RunPred& rb, int64_t item) {
  const bool framework = ra.kind == "framework" || rb.kind == "framework";
  const std::string same = framework ? "framework computing difference" : "kernel noise floor";
  // The backend each side is traced on: a float model's ref64; a quantized model's ref64 for its
  // ref64 run (the float truth), else ref (TFLite's integer arithmetic, for tare's integer runs
  // and a framework's alike).
  const bool qa = quantized_[ra.model] != 0, qb = quantized_[rb.model] != 0;
  const std::string ba = qa && ra.kind != "ref64" ? "ref" : "ref64", bb = qb && rb.kind != "ref64" ? "ref" : "ref64";
  if (ra.model == rb.model && ba == bb) return same;
  auto key = std::make_tuple(ra.model, ba, rb.model, bb, item);
  auto it = judged_.find(key);
  if (it == judged_.end()) {
    // Traced runs of both models on the item (not kept: a traced run holds every layer).
    BackendRun r[2];
    for (int side = 0; side < 2; ++side) {
      const DsModel& dm = models_[side ? rb.model : ra.model];
      size_t traced_bytes = 0;
      TARE_ASSIGN_OR_RETURN(r[side], RunModel(dm.model, side ? bb : ba, {{dm.input, MakeBatch(ds_, item, dm.batch_shape)}}, true,
                                              &traced_bytes));
    }
    const DsModel &a = models_[ra.model], &b = models_[rb.model];
    PairVerdict v = qa || qb ? JudgeQuantization(a.label, *a.model, r[0], b.label, *b.model, r[1], threshold_)
                                               : JudgeModels(a.label, *a.model, r[0], b.label, *b.model, r[1], threshold_, false);
    it = judged_.emplace(key, v.verdict).first;
  }
  return it->second == "same function" ? same : it->second;
}

Result<PairFlips> FlipsBetween(const RunPred& a, const RunPred& b, const DataSet& ds, int64_t n, FlipAttributor& attribute) {
  PairFlips p;
  p.a = a.label;
  p.b = b.label;
  for (int64_t i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i);
    if (a.pred[k] == b.pred[k]) continue;
    Result<std::string> why = attribute(a, b, i);
    if (!why.ok()) return Status::Error("attributing item " + std::to_string(i) + ": " + why.status().message());
    ++p.by_attribution[*why];
    p.flips.push_back({i, ds.labels[k], a.pred[k], b.pred[k], a.margin[k], b.margin[k], *why});
  }
  return p;
}

}  // namespace tare
