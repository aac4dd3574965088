// TF1 control flow and TensorLists in TF.js graph models (graph_converter.h).
//
// A tf.while_loop of a TF1 graph is a frame of nodes: per loop variable an Enter (its initial
// value), a Merge (the value at the top of an iteration: the Enter's or the NextIteration's), a
// Switch on the LoopCond (output 0 leaves through an Exit, output 1 enters the body) and a
// NextIteration (the body's new value); Enters with is_constant are loop invariants. Each frame
// becomes one IR Loop (ONNX Loop-16, no trip count): the condition's nodes are converted twice,
// before the Loop on the initial values (its cond input) and at the end of the body on the new
// values (the body's cond output); the body's reads of outer values are captured (tare.captured,
// docs/ARCHITECTURE.md "Closed subgraphs"), its reads of constants copied in. TensorFlow's
// semantics: the while_loop of TF 1.x control flow (Enter/Exit frames, NextIteration back edges) as
// TF.js 4.22's executor runs it.
//
// TensorLists (TensorListReserve, ...) and TensorArrays (TensorArrayV3, its flow tensor) are IR
// sequences (ONNX SequenceConstruct-11, SequenceAt-11, ...): a reserved list is a sequence of
// placeholder items (empty tensors) that TensorListSetItem replaces one by one.

#include <algorithm>
#include <deque>
#include <memory>

#include "converters/tfjs/graph_converter.h"

namespace tare {
namespace tfjs {

namespace {

const std::set<std::string>& ControlFlowOps() {
  static const std::set<std::string> ops = {"Enter", "RefEnter", "Merge", "RefMerge", "Switch", "RefSwitch", "NextIteration", "RefNextIteration",
                                            "Exit", "RefExit", "LoopCond"};
  return ops;
}
}  // namespace

bool IsControlFlowOp(const std::string& op) { return ControlFlowOps().count(op) != 0; }

namespace {
bool IsOp(const NodeView& n, const char* op) { return n.op == op || n.op == std::string("Ref") + op; }

/// The output index a tensor reference names ("x" 0, "x:1" 1).
int OutputIndex(const std::string& ref) {
  const size_t c = ref.rfind(':');
  if (c == std::string::npos || c + 1 >= ref.size() || !std::all_of(ref.begin() + static_cast<long>(c) + 1, ref.end(), ::isdigit)) return 0;
  return std::atoi(ref.c_str() + c + 1);
}

/// The control inputs ("^x") of a node's JSON, as node names.
std::vector<std::string> ControlInputs(const NodeView& n) {
  std::vector<std::string> v;
  if (n.j->contains("input") && (*n.j)["input"].is_array())
    for (const json& in : (*n.j)["input"])
      if (in.is_string() && !in.get<std::string>().empty() && in.get<std::string>()[0] == '^') v.push_back(in.get<std::string>().substr(1));
  return v;
}

}  // namespace

std::string GraphConverter::WhereNode(size_t i) const { return b_->file() + ": node '" + nodes_[i].name + "' (" + nodes_[i].op + ")"; }

size_t GraphConverter::Src(const std::string& ref) const { return by_name_.at(NodeOf(ref)); }

bool GraphConverter::InOrder(const std::set<size_t>& set, std::vector<size_t>* out) const {
  // Kahn's order over the set's data edges.
  std::map<size_t, int> pend;
  std::map<size_t, std::vector<size_t>> rd;
  for (size_t i : set) {
    pend[i];
    for (const std::string& in : nodes_[i].ins)
      if (set.count(Src(in))) {
        ++pend[i];
        rd[Src(in)].push_back(i);
      }
  }
  std::deque<size_t> ready;
  for (const auto& [i, p] : pend)
    if (!p) ready.push_back(i);
  size_t n_out = 0;
  while (!ready.empty()) {
    const size_t i = ready.front();
    ready.pop_front();
    out->push_back(i);
    ++n_out;
    for (size_t r : rd[i])
      if (--pend[r] == 0) ready.push_back(r);
  }
  return n_out == set.size();
}

Status GraphConverter::FindFrames() {
  const size_t n = nodes_.size();
  frame_of_.assign(n, -1);
  // Readers over data and control edges.
  std::vector<std::vector<size_t>> readers(n);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& in : nodes_[i].ins) readers[Src(in)].push_back(i);
    for (const std::string& c : ControlInputs(nodes_[i])) {
      auto it = by_name_.find(c);
      if (it != by_name_.end()) readers[it->second].push_back(i);
    }
  }
  std::map<std::string, std::vector<size_t>> enters;  // frame name -> its Enters
  std::vector<std::string> frame_names;
  for (size_t i = 0; i < n; ++i)
    if (IsOp(nodes_[i], "Enter")) {
      const std::string f = nodes_[i].S("frame_name", "");
      if (f.empty()) return Status::Error(WhereNode(i) + ": an Enter without a frame_name");
      if (!enters.count(f)) frame_names.push_back(f);
      enters[f].push_back(i);
    }
  for (const std::string& fname : frame_names) TARE_RETURN_IF_ERROR(FindFrame(fname, enters[fname], readers));
  TARE_RETURN_IF_ERROR(FindConds());
  for (size_t i = 0; i < n; ++i)
    if (frame_of_[i] < 0 && cond_of_[i] < 0 && ControlFlowOps().count(nodes_[i].op))
      return Status::Error(StatusCode::kUnsupported, WhereNode(i) + ": " + nodes_[i].op + " outside a while loop and not part of a tf.cond");
  return Status::Ok();
}

Status GraphConverter::FindFrame(const std::string& fname, const std::vector<size_t>& enters, const std::vector<std::vector<size_t>>& readers) {
  Frame f;
  f.name = fname;
  const int fi = static_cast<int>(frames_.size());
  // Members: everything reachable from the frame's Enters, up to and including its Exits.
  std::deque<size_t> frontier(enters.begin(), enters.end());  // breadth-first walk
  std::vector<size_t> members;
  while (!frontier.empty()) {
    const size_t i = frontier.front();
    frontier.pop_front();
    if (frame_of_[i] == fi) continue;
    if (frame_of_[i] >= 0) return Status::Error(WhereNode(i) + ": while loops '" + frames_[static_cast<size_t>(frame_of_[i])].name + "' and '" + fname + "' share nodes");
    if (IsOp(nodes_[i], "Enter") && nodes_[i].S("frame_name", "") != fname)
      return Status::Error(StatusCode::kUnsupported, WhereNode(i) + ": a while loop nested in while loop '" + fname + "' is not supported");
    frame_of_[i] = fi;
    members.push_back(i);
    if (IsOp(nodes_[i], "Exit")) continue;
    for (size_t r : readers[i]) frontier.push_back(r);
  }
  auto in_frame = [&](size_t i) { return frame_of_[i] == fi; };
  // The pattern: LoopCond, and per loop variable Enter -> Merge <- NextIteration, Merge -> Switch.
  int loop_cond = -1;
  for (size_t i : members)
    if (nodes_[i].op == "LoopCond") {
      if (loop_cond >= 0) return Status::Error(WhereNode(i) + ": while loop '" + fname + "' has two LoopCond nodes");
      loop_cond = static_cast<int>(i);
    }
  if (loop_cond < 0) return Status::Error(b_->file() + ": while loop '" + fname + "' has no LoopCond");
  f.loop_cond = static_cast<size_t>(loop_cond);
  if (nodes_[f.loop_cond].ins.size() != 1) return Status::Error(WhereNode(f.loop_cond) + ": expects one input");
  for (size_t e : enters) {
    if (nodes_[e].ins.size() != 1) return Status::Error(WhereNode(e) + ": expects one input");
    if (nodes_[e].B("is_constant", false)) f.invariants.push_back(e);
    else TARE_RETURN_IF_ERROR(MatchLoopVar(e, readers, &f));
  }
  if (f.vars.empty()) return Status::Error(b_->file() + ": while loop '" + fname + "' has no loop variable");
  std::set<size_t> stops;  // where the condition's and the body's nodes begin
  for (const Frame::Var& v : f.vars) stops.insert({v.merge, v.sw});
  for (size_t e : f.invariants) stops.insert(e);
  TARE_RETURN_IF_ERROR(FrameNodes(f, fi, stops, {nodes_[f.loop_cond].ins[0]}, "condition", &f.cond_nodes));
  std::vector<std::string> next_ins;
  for (const Frame::Var& v : f.vars) next_ins.push_back(nodes_[v.next].ins[0]);
  TARE_RETURN_IF_ERROR(FrameNodes(f, fi, stops, next_ins, "body", &f.body_nodes));
  // The condition reads Merges, the body Switches' output 1; both may read invariants.
  for (size_t i : f.cond_nodes)
    for (const std::string& in : nodes_[i].ins)
      if (IsOp(nodes_[Src(in)], "Switch")) return Status::Error(WhereNode(i) + ": a loop condition reading a Switch");
  for (const std::string& r : next_ins)
    if (IsOp(nodes_[Src(r)], "Merge")) return Status::Error(WhereNode(Src(r)) + ": a NextIteration reading a Merge directly");
  for (size_t i : f.body_nodes)
    for (const std::string& in : nodes_[i].ins) {
      if (IsOp(nodes_[Src(in)], "Merge")) return Status::Error(WhereNode(i) + ": a loop body reading a Merge (not its Switch)");
      if (IsOp(nodes_[Src(in)], "Switch") && OutputIndex(in) != 1) return Status::Error(WhereNode(i) + ": a loop body reading a Switch's output 0");
    }
  // What they read from outside (constants or run-time values).
  std::set<std::string> ext;
  auto add = [&](const std::string& t) {
    if (ext.insert(t).second) f.external.push_back(t);
  };
  for (const std::vector<size_t>* list : {&f.cond_nodes, &f.body_nodes})
    for (size_t i : *list)
      for (const std::string& in : nodes_[i].ins)
        if (!in_frame(Src(in))) add(in);
  for (size_t e : f.invariants) add(nodes_[e].ins[0]);
  // Outside the frame, only its Exits may be read.
  for (size_t i : members)
    for (size_t r : readers[i])
      if (!in_frame(r) && !IsOp(nodes_[i], "Exit"))
        return Status::Error(WhereNode(r) + ": reads '" + nodes_[i].name + "' inside while loop '" + fname + "' other than through an Exit");
  frames_.push_back(std::move(f));
  return Status::Ok();
}

Status GraphConverter::MatchLoopVar(size_t e, const std::vector<std::vector<size_t>>& readers, Frame* f) {
  Frame::Var v{e, 0, 0, 0, -1};
  int merge = -1;
  for (size_t r : readers[e])
    if (IsOp(nodes_[r], "Merge")) merge = static_cast<int>(r);
    else return Status::Error(WhereNode(r) + ": reads loop variable Enter '" + nodes_[e].name + "' (only its Merge may)");
  if (merge < 0) return Status::Error(WhereNode(e) + ": a loop variable without a Merge");
  v.merge = static_cast<size_t>(merge);
  const NodeView& m = nodes_[v.merge];
  if (m.ins.size() != 2) return Status::Error(WhereNode(v.merge) + ": a loop Merge must have two inputs (the Enter, the NextIteration)");
  const size_t other = Src(m.ins[0]) == e ? Src(m.ins[1]) : Src(m.ins[0]);
  if (!IsOp(nodes_[other], "NextIteration") || (Src(m.ins[0]) != e && Src(m.ins[1]) != e))
    return Status::Error(WhereNode(v.merge) + ": a loop Merge must read its Enter and a NextIteration");
  v.next = other;
  if (nodes_[v.next].ins.size() != 1) return Status::Error(WhereNode(v.next) + ": expects one input");
  int sw = -1;
  for (size_t r : readers[v.merge])
    if (IsOp(nodes_[r], "Switch")) {
      if (sw >= 0) return Status::Error(WhereNode(v.merge) + ": a loop Merge read by two Switches");
      sw = static_cast<int>(r);
    }
  if (sw < 0) return Status::Error(WhereNode(v.merge) + ": a loop variable without a Switch");
  v.sw = static_cast<size_t>(sw);
  const NodeView& s = nodes_[v.sw];
  if (s.ins.size() != 2 || Src(s.ins[0]) != v.merge || Src(s.ins[1]) != f->loop_cond)
    return Status::Error(WhereNode(v.sw) + ": a loop Switch must read its Merge and the LoopCond");
  for (size_t r : readers[v.sw])
    if (IsOp(nodes_[r], "Exit")) {
      if (OutputIndex(nodes_[r].ins.at(0)) != 0) return Status::Error(WhereNode(r) + ": an Exit must read its Switch's output 0");
      v.exit = static_cast<int>(r);
    }
  f->vars.push_back(v);
  return Status::Ok();
}

Status GraphConverter::FrameNodes(const Frame& f, int fi, const std::set<size_t>& stops, const std::vector<std::string>& roots, const char* what,
                                  std::vector<size_t>* out) const {
  std::set<size_t> seen;
  std::vector<size_t> stack;
  for (const std::string& r : roots) stack.push_back(Src(r));
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    if (frame_of_[i] != fi || stops.count(i) || seen.count(i)) continue;
    if (ControlFlowOps().count(nodes_[i].op))
      return Status::Error(StatusCode::kUnsupported,
                           WhereNode(i) + ": the " + what + " of while loop '" + f.name + "' reads it (a loop inside a loop, or tf.cond in a loop: not supported)");
    seen.insert(i);
    for (const std::string& in : nodes_[i].ins) stack.push_back(Src(in));
  }
  if (!InOrder(seen, out)) return Status::Error(b_->file() + ": the " + std::string(what) + " of while loop '" + f.name + "' has a cycle");
  return Status::Ok();
}

Status GraphConverter::FindConds() {
  const size_t n = nodes_.size();
  cond_of_.assign(n, -1);
  const std::string& file = b_->file();
  auto where = [&](size_t i) { return file + ": node '" + nodes_[i].name + "' (" + nodes_[i].op + ")"; };
  auto src = [&](const std::string& ref) { return by_name_.at(NodeOf(ref)); };
  // Each node's branch context: (predicate, side) from the Switches it depends on, up to a Merge.
  std::vector<std::pair<std::string, int>> ctx(n, {"", -1});
  std::vector<std::vector<std::pair<size_t, int>>> readers(n);  // (reader, the output it reads; -1 control)
  for (size_t i = 0; i < n; ++i) {
    if (frame_of_[i] >= 0) continue;
    for (const std::string& in : nodes_[i].ins) readers[src(in)].push_back({i, OutputIndex(in)});
    for (const std::string& c : ControlInputs(nodes_[i])) {
      auto it = by_name_.find(c);
      if (it != by_name_.end()) readers[it->second].push_back({i, -1});
    }
  }
  std::deque<size_t> todo;
  for (size_t i = 0; i < n; ++i)
    if (frame_of_[i] < 0 && IsOp(nodes_[i], "Switch")) {
      if (nodes_[i].ins.size() != 2) return Status::Error(where(i) + ": expects inputs (data, pred)");
      todo.push_back(i);
    }
  const std::vector<size_t> switches(todo.begin(), todo.end());
  while (!todo.empty()) {
    const size_t i = todo.front();
    todo.pop_front();
    const bool sw = IsOp(nodes_[i], "Switch");
    for (const auto& [r, k] : readers[i]) {
      if (IsOp(nodes_[r], "Merge")) continue;
      if (IsOp(nodes_[r], "Switch"))
        return Status::Error(StatusCode::kUnsupported, where(r) + ": a tf.cond inside a tf.cond is not supported");
      std::pair<std::string, int> c = sw ? std::make_pair(nodes_[i].ins[1], k < 0 ? -2 : k) : ctx[i];
      if (c.second == -2) continue;  // a control edge from a Switch itself
      if (c.second < 0 || c.second > 1) return Status::Error(where(r) + ": reads a Switch's output " + std::to_string(k));
      if (ctx[r].second >= 0 && ctx[r] != c)
        return Status::Error(StatusCode::kUnsupported, where(r) + ": reads both branches of a tf.cond (or two conds) other than through a Merge");
      if (ctx[r].second < 0) {
        ctx[r] = c;
        todo.push_back(r);
      }
    }
  }
  // Merges, grouped by predicate.
  std::map<std::string, size_t> by_pred;
  for (size_t m = 0; m < n; ++m) {
    if (frame_of_[m] >= 0 || !IsOp(nodes_[m], "Merge")) continue;
    const NodeView& mv = nodes_[m];
    if (mv.ins.size() != 2) return Status::Error(where(m) + ": a tf.cond Merge must have two inputs");
    std::pair<std::string, int> side[2];
    for (size_t k = 0; k < 2; ++k) {
      const size_t a = src(mv.ins[k]);
      side[k] = IsOp(nodes_[a], "Switch") ? std::make_pair(nodes_[a].ins[1], OutputIndex(mv.ins[k])) : ctx[a];
    }
    if (side[0].second < 0 || side[1].second < 0 || side[0].first != side[1].first || side[0].second == side[1].second)
      return Status::Error(StatusCode::kUnsupported, where(m) + ": a Merge that does not join the two branches of one tf.cond");
    auto it = by_pred.find(side[0].first);
    if (it == by_pred.end()) {
      it = by_pred.emplace(side[0].first, conds_.size()).first;
      conds_.push_back(Cond());
      conds_.back().pred = side[0].first;
    }
    conds_[it->second].merges.push_back(m);
  }
  for (size_t ci = 0; ci < conds_.size(); ++ci) {
    Cond& c = conds_[ci];
    for (size_t s : switches)
      if (nodes_[s].ins[1] == c.pred) {
        c.switches.push_back(s);
        cond_of_[s] = static_cast<int>(ci);
      }
    for (size_t m : c.merges) cond_of_[m] = static_cast<int>(ci);
    for (int side = 0; side < 2; ++side) {
      // The nodes each side's Merge inputs need, in topological order.
      std::set<size_t> seen;
      std::vector<size_t> stack;
      for (size_t m : c.merges)
        for (const std::string& in : nodes_[m].ins) {
          const size_t a = src(in);
          if (ctx[a] == std::make_pair(c.pred, side)) stack.push_back(a);
        }
      while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        if (seen.count(i) || ctx[i] != std::make_pair(c.pred, side)) continue;
        seen.insert(i);
        for (const std::string& in : nodes_[i].ins) stack.push_back(src(in));
      }
      if (!InOrder(seen, &c.branch[side]))
        return Status::Error(file + ": branch " + std::to_string(side) + " of the tf.cond on '" + c.pred + "' has a cycle");
      for (size_t i : c.branch[side]) cond_of_[i] = static_cast<int>(ci);
    }
    // The branches' other nodes (pivots, constants under their control) belong to it too, unconverted.
    for (size_t i = 0; i < n; ++i)
      if (ctx[i].second >= 0 && ctx[i].first == c.pred && cond_of_[i] < 0) cond_of_[i] = static_cast<int>(ci);
    // What the branches read from outside: a Switch's data input, or any outer tensor.
    std::set<std::string> ext;
    auto add = [&](const std::string& t) {
      if (ext.insert(t).second) c.external.push_back(t);
    };
    for (int side = 0; side < 2; ++side)
      for (size_t i : c.branch[side])
        for (const std::string& in : nodes_[i].ins) {
          const size_t a = src(in);
          if (IsOp(nodes_[a], "Switch")) add(nodes_[a].ins[0]);
          else if (cond_of_[a] != static_cast<int>(ci)) add(in);
        }
    for (size_t m : c.merges)
      for (const std::string& in : nodes_[m].ins)
        if (IsOp(nodes_[src(in)], "Switch")) add(nodes_[src(in)].ins[0]);
  }
  // A node outside reading a branch's node (not through a Merge) reads a value that may not exist.
  for (size_t i = 0; i < n; ++i)
    if (cond_of_[i] < 0 && frame_of_[i] < 0 && !IsOp(nodes_[i], "Merge"))
      for (const std::string& in : nodes_[i].ins) {
        const size_t a = src(in);
        if (cond_of_[a] >= 0 && !IsOp(nodes_[a], "Merge"))
          return Status::Error(StatusCode::kUnsupported, where(i) + ": reads '" + nodes_[a].name + "' inside a tf.cond branch other than through a Merge");
      }
  return Status::Ok();
}

Status GraphConverter::ConvertCond(const Cond& c) {
  Builder* outer = b_;
  const std::string where = "tf.cond on '" + c.pred + "'";
  outer->SetWhere(where);
  TARE_ASSIGN_OR_RETURN(const int pred, outer->Plain(c.pred));
  std::vector<int> captured;
  std::vector<std::string> cap_names;
  for (const std::string& t : c.external)
    if (!outer->IsConst(t)) {
      TARE_ASSIGN_OR_RETURN(int v, outer->Plain(t));
      captured.push_back(v);
      cap_names.push_back(t);
    }
  struct Restore {
    GraphConverter* c;
    Builder* b;
    ~Restore() { c->b_ = b; }
  } restore{this, outer};
  std::shared_ptr<Graph> branch[2];
  std::vector<Builder::TState> out_state;
  for (int side = 1; side >= 0; --side) {
    branch[side] = std::make_shared<Graph>();
    Builder bb(branch[side].get(), outer->file());
    for (const std::string& t : c.external)
      if (outer->IsConst(t)) bb.SetConst(t, outer->Data(t));
    for (const std::string& t : cap_names) bb.AddFormalInput(t, outer->S(t));
    for (size_t s : c.switches) {
      const std::string ref = side ? nodes_[s].name + ":1" : nodes_[s].name;
      bb.SetWhere(where);
      if (bb.Known(nodes_[s].ins[0])) TARE_RETURN_IF_ERROR(bb.Alias(ref, nodes_[s].ins[0]));  // else no branch reads it (a pivot)
    }
    b_ = &bb;
    TARE_RETURN_IF_ERROR(ConvertAll(c.branch[side]));
    b_ = outer;
    bb.SetWhere(where);
    for (size_t mi = 0; mi < c.merges.size(); ++mi) {
      const NodeView& m = nodes_[c.merges[mi]];
      std::string t;
      for (const std::string& in : m.ins) {
        const size_t a = by_name_.at(NodeOf(in));
        const bool from_switch = IsOp(nodes_[a], "Switch");
        if ((from_switch && OutputIndex(in) == side) ||
            (!from_switch && std::find(c.branch[side].begin(), c.branch[side].end(), a) != c.branch[side].end()))
          t = from_switch ? (side ? nodes_[a].name + ":1" : nodes_[a].name) : in;
      }
      if (t.empty()) return bb.Error("Merge '" + m.name + "' has no input from this branch");
      TARE_ASSIGN_OR_RETURN(int v, bb.Plain(t));
      Graph& g = *branch[side];
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.is_constant || std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end() ||
          std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end()) {
        const ValueKind kind = val.kind;
        const DType dt = val.dtype;
        v = bb.Node1("Identity", m.name + "/out", {v}, m.name + "/out", dt);
        g.values[static_cast<size_t>(v)].kind = kind;
      }
      g.outputs.push_back(v);
      if (side == 1) out_state.push_back(bb.S(t));
      else if (out_state[mi].dtype != bb.S(t).dtype || out_state[mi].kind != bb.S(t).kind)
        return bb.Error("the branches of Merge '" + m.name + "' differ in type");
      else if (out_state[mi].rank != bb.S(t).rank) out_state[mi].rank = -1;
    }
  }
  std::vector<int> ins = {pred};
  ins.insert(ins.end(), captured.begin(), captured.end());
  std::vector<int> outv;
  for (size_t mi = 0; mi < c.merges.size(); ++mi) {
    const int v = outer->NewValue(nodes_[c.merges[mi]].name, out_state[mi].dtype);
    outer->graph()->values[static_cast<size_t>(v)].kind = out_state[mi].kind;
    outv.push_back(v);
  }
  Attr then_g, else_g;
  then_g.kind = else_g.kind = Attr::Kind::kGraph;
  then_g.graph = branch[1];
  else_g.graph = branch[0];
  std::map<std::string, Attr> attrs = {{"then_branch", then_g}, {"else_branch", else_g}};
  if (!captured.empty()) attrs["tare.captured"] = IntAttr(static_cast<int64_t>(captured.size()));
  outer->AddNode("If", "cond/" + c.pred, ins, outv, attrs);
  for (size_t mi = 0; mi < c.merges.size(); ++mi) {
    const std::string& nm = nodes_[c.merges[mi]].name;
    if (out_state[mi].kind == ValueKind::kSequence) outer->SetSeq(nm, outv[mi], out_state[mi].dtype);
    else outer->Set(nm, outv[mi], false, out_state[mi].rank, out_state[mi].dtype);
  }
  return Status::Ok();
}

Status GraphConverter::ConvertAll(const std::vector<size_t>& idx) {
  for (size_t i : idx) {
    const NodeView& n = nodes_[i];
    b_->SetWhere("node '" + n.name + "' (" + n.op + ")");
    TARE_RETURN_IF_ERROR(Convert(n));
  }
  return Status::Ok();
}

Status GraphConverter::ConvertLoop(const Frame& f) {
  Builder* outer = b_;
  const std::string where = "while loop '" + f.name + "'";
  // Invariants read the outer values; the condition first runs on the initial values.
  for (size_t e : f.invariants) TARE_RETURN_IF_ERROR(outer->Alias(nodes_[e].name, nodes_[e].ins[0]));
  std::vector<std::string> init;
  for (const Frame::Var& v : f.vars) {
    init.push_back(nodes_[v.enter].ins[0]);
    outer->SetWhere(where);
    TARE_RETURN_IF_ERROR(outer->Alias(nodes_[v.merge].name, init.back()));
  }
  TARE_RETURN_IF_ERROR(ConvertAll(f.cond_nodes));
  const std::string& cond_t = nodes_[f.loop_cond].ins[0];
  outer->SetWhere(where);
  TARE_ASSIGN_OR_RETURN(const int cond0, outer->Plain(cond_t));
  if (outer->S(cond_t).dtype != DType::kBool) return outer->Error("the loop condition is not a bool");
  std::vector<int> init_v;
  for (const std::string& t : init) {
    TARE_ASSIGN_OR_RETURN(int v, outer->Plain(t));
    init_v.push_back(v);
  }
  // The body: inputs (iteration, cond, the variables' Switch outputs 1, captured values).
  auto body = std::make_shared<Graph>();
  Builder bb(body.get(), outer->file());
  const Shape scalar;
  body->inputs.push_back(bb.NewValue(f.name + "/iteration", DType::kInt64, &scalar));
  body->inputs.push_back(bb.NewValue(f.name + "/cond", DType::kBool, &scalar));
  for (size_t k = 0; k < f.vars.size(); ++k) bb.AddFormalInput(nodes_[f.vars[k].sw].name + ":1", outer->S(init[k]));
  std::vector<int> captured;
  for (const std::string& t : f.external) {
    if (outer->IsConst(t)) {
      bb.SetConst(t, outer->Data(t));
      continue;
    }
    TARE_ASSIGN_OR_RETURN(int ov, outer->Plain(t));
    captured.push_back(ov);
    bb.AddFormalInput(t, outer->S(t));
  }
  for (size_t e : f.invariants) TARE_RETURN_IF_ERROR(bb.Alias(nodes_[e].name, nodes_[e].ins[0]));
  struct Restore {
    GraphConverter* c;
    Builder* b;
    ~Restore() { c->b_ = b; }
  } restore{this, outer};
  b_ = &bb;
  TARE_RETURN_IF_ERROR(ConvertAll(f.body_nodes));
  // The condition again, on the new values.
  std::vector<std::string> next;
  for (const Frame::Var& v : f.vars) {
    next.push_back(nodes_[v.next].ins[0]);
    bb.SetWhere(where);
    TARE_RETURN_IF_ERROR(bb.Alias(nodes_[v.merge].name, next.back()));
  }
  TARE_RETURN_IF_ERROR(ConvertAll(f.cond_nodes));
  bb.SetWhere(where);
  std::vector<std::string> outs = {cond_t};
  outs.insert(outs.end(), next.begin(), next.end());
  for (size_t k = 0; k < outs.size(); ++k) {
    TARE_ASSIGN_OR_RETURN(int v, bb.Plain(outs[k]));
    const Value& val = body->values[static_cast<size_t>(v)];
    // A body output of its own (not an input, a constant or another output).
    if (val.is_constant || std::find(body->inputs.begin(), body->inputs.end(), v) != body->inputs.end() ||
        std::find(body->outputs.begin(), body->outputs.end(), v) != body->outputs.end()) {
      const ValueKind kind = val.kind;
      v = bb.Node1("Identity", f.name + "/out" + std::to_string(k), {v}, f.name + "/out" + std::to_string(k), val.dtype);
      body->values[static_cast<size_t>(v)].kind = kind;
    }
    if (k > 0) {
      const Builder::TState& before = outer->S(init[k - 1]);
      const Builder::TState& after = bb.S(outs[k]);
      if (before.kind != after.kind || before.dtype != after.dtype)
        return bb.Error("loop variable " + std::to_string(k - 1) + " ('" + nodes_[f.vars[k - 1].enter].name + "') changes type in the body");
    }
    body->outputs.push_back(v);
  }
  b_ = outer;
  // The Loop.
  std::vector<int> ins = {-1, cond0};
  ins.insert(ins.end(), init_v.begin(), init_v.end());
  ins.insert(ins.end(), captured.begin(), captured.end());
  std::vector<int> outv;
  for (size_t k = 0; k < f.vars.size(); ++k) {
    const Builder::TState& s = outer->S(init[k]);
    const std::string nm = f.vars[k].exit >= 0 ? nodes_[static_cast<size_t>(f.vars[k].exit)].name : f.name + "/final" + std::to_string(k);
    const int v = outer->NewValue(nm, s.dtype);
    outer->graph()->values[static_cast<size_t>(v)].kind = s.kind;
    outv.push_back(v);
  }
  Attr g;
  g.kind = Attr::Kind::kGraph;
  g.graph = body;
  std::map<std::string, Attr> attrs = {{"body", g}};
  if (!captured.empty()) attrs["tare.captured"] = IntAttr(static_cast<int64_t>(captured.size()));
  outer->AddNode("Loop", f.name, ins, outv, attrs);
  for (size_t k = 0; k < f.vars.size(); ++k) {
    if (f.vars[k].exit < 0) continue;
    const Builder::TState s = outer->S(init[k]);
    const std::string& nm = nodes_[static_cast<size_t>(f.vars[k].exit)].name;
    if (s.kind == ValueKind::kSequence) outer->SetSeq(nm, outv[k], s.dtype);
    else outer->Set(nm, outv[k], false, s.rank, s.dtype);
  }
  return Status::Ok();
}

// ---- TensorLists and TensorArrays as sequences ------------------------------------------------

namespace {
/// The element type a TensorList op names (attribute element_dtype or dtype), as tare holds it.
Result<DType> ElementType(const NodeView& n) {
  std::string t = n.Type("element_dtype");
  if (t.empty()) t = n.Type("dtype");
  if (t.empty()) t = "DT_FLOAT";
  return TfType(t);
}
}  // namespace

Result<int> GraphConverter::Reserved(const std::string& n_tensor, DType dt, const std::string& y) {
  TARE_ASSIGN_OR_RETURN(std::vector<int64_t> nv, b_->ConstInts(n_tensor, "the number of elements"));
  if (nv.size() != 1 || nv[0] < 0 || nv[0] > (int64_t(1) << 16))
    return Error("a reserved list needs a constant number of elements in [0, 65536]");
  if (nv[0] == 0) return b_->Node1("SequenceEmpty", y, {}, y, dt, {{"dtype", IntAttr(static_cast<int>(dt))}});
  TARE_ASSIGN_OR_RETURN(Tensor empty, Tensor::Alloc(dt, Shape{0}));
  const int e = b_->Const(y + "/unset", empty);
  return b_->Node1("SequenceConstruct", y, std::vector<int>(static_cast<size_t>(nv[0]), e), y, dt);
}

Result<int> GraphConverter::SetItem(const std::string& y, const std::string& seq, const std::string& index, const std::string& item) {
  if (b_->S(seq).kind != ValueKind::kSequence) return Error("'" + seq + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(seq));
  TARE_ASSIGN_OR_RETURN(int i, AsI64(index, y + "/index"));
  TARE_ASSIGN_OR_RETURN(int x, b_->Plain(item));
  const DType dt = b_->S(seq).dtype;
  const int erased = b_->Node1("SequenceErase", y + "/erase", {s, i}, y + "/erased", dt);
  b_->graph()->values[static_cast<size_t>(erased)].kind = ValueKind::kSequence;
  return b_->Node1("SequenceInsert", y, {erased, x, i}, y, dt);
}

Result<int> GraphConverter::Gather(const std::string& y, const std::string& seq, const std::string& indices) {
  if (b_->S(seq).kind != ValueKind::kSequence) return Error("'" + seq + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(seq));
  const DType dt = b_->S(seq).dtype;
  if (indices.empty()) return b_->Node1("ConcatFromSequence", y, {s}, y, dt, {{"axis", IntAttr(0)}, {"new_axis", IntAttr(1)}});
  // A Loop over the indices whose scan output is each indexed item.
  TARE_ASSIGN_OR_RETURN(int idx, AsI64(indices, y + "/indices"));
  const int count = b_->Node1("Size", y + "/count", {idx}, y + "/count", DType::kInt64);
  auto body = std::make_shared<Graph>();
  GraphWriter w(body.get());
  const Shape scalar;
  const int it = w.NewValue("i", DType::kInt64, &scalar), c = w.NewValue("cond", DType::kBool, &scalar);
  const int bidx = w.NewValue("indices", DType::kInt64), bseq = w.NewValue("seq", dt);
  body->values[static_cast<size_t>(bseq)].kind = ValueKind::kSequence;
  body->inputs = {it, c, bidx, bseq};
  const int at = w.Node1("Gather", "index", {bidx, it}, "index", DType::kInt64, {{"axis", IntAttr(0)}});
  const int item = w.Node1("SequenceAt", "item", {bseq, at}, "item", dt);
  const int c2 = w.Node1("Identity", "cond_out", {c}, "cond_out", DType::kBool);
  body->outputs = {c2, item};
  Attr g;
  g.kind = Attr::Kind::kGraph;
  g.graph = body;
  const int out = b_->NewValue(y, dt);
  b_->AddNode("Loop", y, {count, -1, idx, s}, {out}, {{"body", g}, {"tare.captured", IntAttr(2)}});
  return out;
}

/// TensorFlow TensorListReserve (element_shape, num_elements) and EmptyTensorList.
Status GraphConverter::TensorListReserve(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(DType dt, ElementType(n));
  TARE_ASSIGN_OR_RETURN(std::string num, In(n, 1));
  int v;
  if (n.op == "EmptyTensorList") v = b_->Node1("SequenceEmpty", n.name, {}, n.name, dt, {{"dtype", IntAttr(static_cast<int>(dt))}});
  else {
    TARE_ASSIGN_OR_RETURN(v, Reserved(num, dt, n.name));
  }
  b_->SetSeq(n.name, v, dt);
  return Status::Ok();
}

/// TensorFlow TensorListFromTensor (tensor, element_shape): one item per index of axis 0.
Status GraphConverter::TensorListFromTensor(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const DType dt = b_->S(x).dtype;
  const int v = b_->Node1("SplitToSequence", n.name, {xv}, n.name, dt, {{"axis", IntAttr(0)}, {"keepdims", IntAttr(0)}});
  b_->SetSeq(n.name, v, dt);
  b_->S(n.name).rank = b_->Rank(x) > 0 ? b_->Rank(x) - 1 : -1;  // the items' rank
  return Status::Ok();
}

/// TensorFlow TensorListGetItem (list, index, element_shape).
Status GraphConverter::TensorListGetItem(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string i, In(n, 1));
  if (b_->S(l).kind != ValueKind::kSequence) return Error("'" + l + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(l));
  TARE_ASSIGN_OR_RETURN(int iv, AsI64(i, n.name + "/index"));
  const DType dt = b_->S(l).dtype;
  int rank = b_->Rank(l);  // the items' rank where known, else element_shape's
  if (n.ins.size() > 2 && b_->IsConst(n.ins[2]) && b_->Data(n.ins[2]).shape.size() == 1) rank = static_cast<int>(b_->Data(n.ins[2]).numel());
  b_->Set(n.name, b_->Node1("SequenceAt", n.name, {s, iv}, n.name, dt), false, rank, dt);
  return Status::Ok();
}

/// TensorFlow TensorListSetItem (list, index, item).
Status GraphConverter::TensorListSetItem(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string i, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 2));
  TARE_ASSIGN_OR_RETURN(int v, SetItem(n.name, l, i, x));
  b_->SetSeq(n.name, v, b_->S(l).dtype);
  b_->S(n.name).rank = b_->Rank(x);  // the items' rank
  return Status::Ok();
}

/// TensorFlow TensorListStack (list, element_shape) and TensorListConcatV2 (list, element_shape,
/// leading_dims: only output 0, the items concatenated along axis 0).
Status GraphConverter::TensorListStack(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  if (b_->S(l).kind != ValueKind::kSequence) return Error("'" + l + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(l));
  const DType dt = b_->S(l).dtype;
  const bool stack = n.op == "TensorListStack";
  int rank = b_->Rank(l) >= 0 ? b_->Rank(l) + (stack ? 1 : 0) : -1;
  if (n.ins.size() > 1 && b_->IsConst(n.ins[1]) && b_->Data(n.ins[1]).shape.size() == 1)
    rank = static_cast<int>(b_->Data(n.ins[1]).numel()) + (stack ? 1 : 0);
  const int v = b_->Node1("ConcatFromSequence", n.name, {s}, n.name, dt, {{"axis", IntAttr(0)}, {"new_axis", IntAttr(stack ? 1 : 0)}});
  b_->Set(n.name, v, false, rank, dt);
  return Status::Ok();
}

/// TensorFlow TensorListLength (an int32 scalar).
Status GraphConverter::TensorListLength(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  if (b_->S(l).kind != ValueKind::kSequence) return Error("'" + l + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(l));
  const int len = b_->Node1("SequenceLength", n.name + "/int64", {s}, n.name + "/int64", DType::kInt64);
  b_->Set(n.name, b_->Node1("Cast", n.name, {len}, n.name, DType::kInt32, {{"to", IntAttr(static_cast<int>(DType::kInt32))}}), false, 0, DType::kInt32);
  return Status::Ok();
}

/// TensorFlow TensorListPushBack (list, tensor).
Status GraphConverter::TensorListPushBack(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 1));
  if (b_->S(l).kind != ValueKind::kSequence) return Error("'" + l + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(l));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  b_->SetSeq(n.name, b_->Node1("SequenceInsert", n.name, {s, xv}, n.name, b_->S(l).dtype), b_->S(l).dtype);
  return Status::Ok();
}

/// TensorFlow TensorListPopBack (list, element_shape): output 0 the list without its last item,
/// output 1 that item.
Status GraphConverter::TensorListPopBack(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string l, In(n, 0));
  if (b_->S(l).kind != ValueKind::kSequence) return Error("'" + l + "' is not a TensorList");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(l));
  const DType dt = b_->S(l).dtype;
  const int last = b_->ConstI64(n.name + "/last", {-1});
  const int item = b_->Node1("SequenceAt", n.name + ":1", {s, last}, n.name + ":1", dt);
  b_->Set(n.name + ":1", item, false, -1, dt);
  b_->SetSeq(n.name, b_->Node1("SequenceErase", n.name, {s}, n.name, dt), dt);
  return Status::Ok();
}

/// TensorFlow TensorListSplit (tensor, element_shape, lengths): items of `lengths` rows each.
Status GraphConverter::TensorListSplit(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 0));
  TARE_ASSIGN_OR_RETURN(std::string len, In(n, 2));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  TARE_ASSIGN_OR_RETURN(int lv, AsI64(len, n.name + "/lengths"));
  const DType dt = b_->S(x).dtype;
  b_->SetSeq(n.name, b_->Node1("SplitToSequence", n.name, {xv, lv}, n.name, dt, {{"axis", IntAttr(0)}}), dt);
  return Status::Ok();
}

/// TensorFlow TensorArrayV3 (size): output 0 the handle (a placeholder: every op reads the flow),
/// output 1 the flow, a sequence of `size` unset items.
Status GraphConverter::TensorArrayV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(DType dt, ElementType(n));
  TARE_ASSIGN_OR_RETURN(std::string size, In(n, 0));
  if (n.B("dynamic_size", false)) return Error("a TensorArray of dynamic_size is not supported");
  TARE_ASSIGN_OR_RETURN(int v, Reserved(size, dt, n.name + ":1"));
  b_->SetSeq(n.name + ":1", v, dt);
  b_->SetConst(n.name, Int64Vector({0}));
  return Status::Ok();
}

/// TensorFlow TensorArrayReadV3 (handle, index, flow_in).
Status GraphConverter::TensorArrayReadV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string i, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string flow, In(n, 2));
  if (b_->S(flow).kind != ValueKind::kSequence) return Error("'" + flow + "' is not a TensorArray's flow");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(flow));
  TARE_ASSIGN_OR_RETURN(int iv, AsI64(i, n.name + "/index"));
  const DType dt = b_->S(flow).dtype;
  b_->Set(n.name, b_->Node1("SequenceAt", n.name, {s, iv}, n.name, dt), false, b_->Rank(flow), dt);
  return Status::Ok();
}

/// TensorFlow TensorArrayWriteV3 (handle, index, value, flow_in) -> flow_out.
Status GraphConverter::TensorArrayWriteV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string i, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 2));
  TARE_ASSIGN_OR_RETURN(std::string flow, In(n, 3));
  TARE_ASSIGN_OR_RETURN(int v, SetItem(n.name, flow, i, x));
  b_->SetSeq(n.name, v, b_->S(flow).dtype);
  b_->S(n.name).rank = b_->Rank(x);
  return Status::Ok();
}

/// TensorFlow TensorArraySizeV3 (handle, flow_in): an int32 scalar.
Status GraphConverter::TensorArraySizeV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string flow, In(n, 1));
  NodeView m = n;
  m.ins = {flow};
  return TensorListLength(m);
}

/// TensorFlow TensorArrayGatherV3 (handle, indices, flow_in): the indexed items stacked.
Status GraphConverter::TensorArrayGatherV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string idx, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string flow, In(n, 2));
  TARE_ASSIGN_OR_RETURN(int v, Gather(n.name, flow, idx));
  b_->Set(n.name, v, false, b_->Rank(flow) >= 0 ? b_->Rank(flow) + 1 : -1, b_->S(flow).dtype);
  return Status::Ok();
}

/// TensorFlow TensorArrayScatterV3 (handle, indices, value, flow_in) -> flow_out: item indices[j]
/// becomes value[j] (a Loop over j).
Status GraphConverter::TensorArrayScatterV3(const NodeView& n) {
  TARE_ASSIGN_OR_RETURN(std::string idx, In(n, 1));
  TARE_ASSIGN_OR_RETURN(std::string x, In(n, 2));
  TARE_ASSIGN_OR_RETURN(std::string flow, In(n, 3));
  if (b_->S(flow).kind != ValueKind::kSequence) return Error("'" + flow + "' is not a TensorArray's flow");
  TARE_ASSIGN_OR_RETURN(int s, b_->Plain(flow));
  TARE_ASSIGN_OR_RETURN(int iv, AsI64(idx, n.name + "/indices"));
  TARE_ASSIGN_OR_RETURN(int xv, b_->Plain(x));
  const DType dt = b_->S(flow).dtype;
  const int count = b_->Node1("Size", n.name + "/count", {iv}, n.name + "/count", DType::kInt64);
  auto body = std::make_shared<Graph>();
  GraphWriter w(body.get());
  const Shape scalar;
  const int it = w.NewValue("j", DType::kInt64, &scalar), c = w.NewValue("cond", DType::kBool, &scalar);
  const int bseq = w.NewValue("seq", dt), bidx = w.NewValue("indices", DType::kInt64), bx = w.NewValue("value", b_->S(x).dtype);
  body->values[static_cast<size_t>(bseq)].kind = ValueKind::kSequence;
  body->inputs = {it, c, bseq, bidx, bx};
  const int at = w.Node1("Gather", "index", {bidx, it}, "index", DType::kInt64, {{"axis", IntAttr(0)}});
  const int row = w.Node1("Gather", "row", {bx, it}, "row", b_->S(x).dtype, {{"axis", IntAttr(0)}});
  const int erased = w.Node1("SequenceErase", "erase", {bseq, at}, "erased", dt);
  body->values[static_cast<size_t>(erased)].kind = ValueKind::kSequence;
  const int seq2 = w.Node1("SequenceInsert", "insert", {erased, row, at}, "seq_out", dt);
  body->values[static_cast<size_t>(seq2)].kind = ValueKind::kSequence;
  const int c2 = w.Node1("Identity", "cond_out", {c}, "cond_out", DType::kBool);
  body->outputs = {c2, seq2};
  Attr g;
  g.kind = Attr::Kind::kGraph;
  g.graph = body;
  const int out = b_->NewValue(n.name, dt);
  b_->graph()->values[static_cast<size_t>(out)].kind = ValueKind::kSequence;
  b_->AddNode("Loop", n.name, {count, -1, s, iv, xv}, {out}, {{"body", g}, {"tare.captured", IntAttr(2)}});
  b_->SetSeq(n.name, out, dt);
  b_->S(n.name).rank = b_->Rank(x) > 0 ? b_->Rank(x) - 1 : -1;
  return Status::Ok();
}

}  // namespace tfjs
}  // namespace tare
