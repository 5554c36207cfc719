// TF1 loops into While nodes: the frames of Enter, Merge, Switch, LoopCond, NextIteration and
// Exit nodes found, checked and turned into conditions and bodies (see control_flow.h).
#include <algorithm>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/control_flow.h"
#include "graph/control_flow_internal.h"
#include "graph/node.h"

namespace dfc {
namespace {

using control_flow_internal::FindAttr;
using control_flow_internal::IsEnter;
using control_flow_internal::IsExit;
using control_flow_internal::IsMerge;
using control_flow_internal::IsNextIteration;
using control_flow_internal::IsSwitch;
using control_flow_internal::NodeError;
using control_flow_internal::Placeholder;

bool IsLoopCond(const tf::NodeDef& n) { return n.op() == "LoopCond"; }

// One TF1 loop's frame.
struct Frame {
  std::string name;
  int parent = -1;  // -1 for the root (no loop)
  int depth = 0;
};

class Functionalizer {
 public:
  Functionalizer(tf::GraphDef& def, FunctionBodies& bodies) : def_(def), bodies_(bodies) {}

  absl::Status Run() {
    bool any = false;
    for (const tf::NodeDef& n : def_.node()) any |= IsEnter(n) || IsExit(n) || IsLoopCond(n);
    if (!any) return absl::OkStatus();
    DFC_RETURN_IF_ERROR(AssignFrames());
    DFC_RETURN_IF_ERROR(CheckFrames());
    // Innermost first: an inner loop becomes a node of its outer loop's body.
    std::vector<int> order;
    for (int f = 1; f < static_cast<int>(frames_.size()); ++f) order.push_back(f);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return frames_[a].depth > frames_[b].depth; });
    for (int f : order) DFC_RETURN_IF_ERROR(Functionalize(f));
    tf::GraphDef out;
    *out.mutable_versions() = def_.versions();
    *out.mutable_library() = def_.library();
    for (int i = 0; i < def_.node_size(); ++i) {
      if (!removed_.contains(def_.node(i).name())) *out.add_node() = def_.node(i);
    }
    def_ = std::move(out);
    return absl::OkStatus();
  }

 private:
  void Index() {
    index_.clear();
    consumers_.clear();
    for (int i = 0; i < def_.node_size(); ++i) index_[def_.node(i).name()] = i;
    for (int i = 0; i < def_.node_size(); ++i) {
      for (const std::string& text : def_.node(i).input()) {
        const NodeInput in = ParseNodeInput(text);
        const auto p = index_.find(in.tensor.node);
        if (p != index_.end()) consumers_[p->second].push_back(i);
      }
    }
  }

  // The nodes that read node `i` (none for a node nothing reads).
  const std::vector<int>& ConsumersOf(int i) const {
    static const std::vector<int> kNone;
    const auto it = consumers_.find(i);
    return it == consumers_.end() ? kNone : it->second;
  }

  int IndexOf(const std::string& name) const {
    const auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
  }

  // A constant with no input at all belongs to no frame: any frame may read it (a copy).
  bool IsFree(int i) const {
    return def_.node(i).input_size() == 0 && def_.node(i).op() == "Const";
  }

  absl::Status AssignFrames() {
    Index();
    frames_ = {Frame{}};
    frame_.assign(def_.node_size(), -2);  // -2: not yet known
    absl::flat_hash_map<std::string, int> by_name;
    std::deque<int> work;
    for (int i = 0; i < def_.node_size(); ++i) {
      if (def_.node(i).input_size() == 0) {  // a placeholder, a constant: outside any loop
        frame_[i] = 0;
        work.push_back(i);
      }
    }
    // From each node whose frame is known to its consumers, until nothing changes.
    while (!work.empty()) {
      const int p = work.front();
      work.pop_front();
      for (int c : consumers_[p]) {
        const tf::NodeDef& node = def_.node(c);
        // The deepest frame among the inputs known so far, data inputs before control ones; free
        // inputs say nothing unless every input is free. A node placed in a frame and later
        // found to read a deeper one moves there, so that a value read across frames is
        // reported where it is read.
        int from = -2;
        bool all_free = true;
        bool from_data = false;
        for (const std::string& text : node.input()) {
          const NodeInput in = ParseNodeInput(text);
          const int q = IndexOf(in.tensor.node);
          if (q < 0 || IsFree(q)) continue;
          all_free = false;
          // A Merge is where its Enter is; its NextIteration must be there too (CheckFrames).
          if (IsMerge(node) && IsNextIteration(def_.node(q))) continue;
          if (frame_[q] == -2 || (from_data && in.control)) continue;
          if (from == -2 || (!from_data && !in.control) ||
              frames_[frame_[q]].depth > frames_[from].depth) {
            from = frame_[q];
          }
          from_data |= !in.control;
        }
        if (all_free) from = 0;
        if (from == -2) continue;
        int frame = from;
        if (IsEnter(node)) {
          const tf::AttrValue* name = FindAttr(node, "frame_name");
          if (name == nullptr || name->s().empty()) return NodeError(node, "has no frame_name");
          auto [it, inserted] = by_name.try_emplace(name->s(), static_cast<int>(frames_.size()));
          if (inserted) {
            frames_.push_back(
                Frame{.name = name->s(), .parent = from, .depth = frames_[from].depth + 1});
          } else if (frames_[it->second].parent != from) {
            return NodeError(node, absl::StrCat("enters frame \"", name->s(),
                                                "\" from another frame than its other Enters"));
          }
          frame = it->second;
        } else if (IsExit(node)) {
          if (from == 0) {
            return NodeError(node, "an Exit without its Enter: it reads a value outside any loop");
          }
          frame = frames_[from].parent;
        }
        if (frame_[c] != -2 && (IsEnter(node) || IsExit(node) ||
                                frames_[frame].depth <= frames_[frame_[c]].depth)) {
          continue;
        }
        frame_[c] = frame;
        work.push_back(c);
      }
    }
    for (int i = 0; i < def_.node_size(); ++i) {
      if (frame_[i] == -2) {
        return NodeError(def_.node(i),
                         "is in a cycle that no loop's Enter starts (a NextIteration's Merge must "
                         "also read an Enter)");
      }
    }
    return absl::OkStatus();
  }

  // Every edge stays in its frame, but an Enter's (from the parent) and an Exit's (to it).
  absl::Status CheckFrames() const {
    for (int c = 0; c < def_.node_size(); ++c) {
      const tf::NodeDef& node = def_.node(c);
      for (const std::string& text : node.input()) {
        const NodeInput in = ParseNodeInput(text);
        const int p = IndexOf(in.tensor.node);
        if (p < 0 || IsFree(p)) continue;
        int expected = frame_[c];
        if (IsEnter(node)) expected = frames_[frame_[c]].parent;
        if (IsExit(def_.node(c)) && !in.control) {
          if (frames_[frame_[p]].parent != frame_[c]) {
            return NodeError(node, absl::StrCat("leaves frame \"", FrameName(frame_[p]),
                                                "\" into another frame than its parent"));
          }
          continue;
        }
        if (frame_[p] == expected) continue;
        const tf::NodeDef& producer = def_.node(p);
        if (IsNextIteration(producer)) {
          return NodeError(producer, absl::StrCat("feeds node \"", node.name(),
                                                  "\" of another frame (\"", FrameName(frame_[c]),
                                                  "\", not \"", FrameName(frame_[p]), "\")"));
        }
        return NodeError(node, absl::StrCat("in frame \"", FrameName(frame_[c]), "\" reads \"",
                                            text, "\" of frame \"", FrameName(frame_[p]),
                                            "\" without an Enter or Exit"));
      }
    }
    return absl::OkStatus();
  }

  std::string FrameName(int f) const { return f == 0 ? "(outside any loop)" : frames_[f].name; }

  // The nodes of `roots` and what they read in frame `f` (data and control inputs), stopping at
  // `stops`; free nodes they read are copied in too.
  std::vector<int> Closure(const std::vector<int>& roots, int f,
                           const absl::flat_hash_set<int>& stops) const {
    absl::flat_hash_set<int> seen;
    std::vector<int> stack;
    for (int r : roots) {
      if (!stops.contains(r) && seen.insert(r).second) stack.push_back(r);
    }
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      for (const std::string& text : def_.node(i).input()) {
        const int p = IndexOf(ParseNodeInput(text).tensor.node);
        if (p < 0 || stops.contains(p) || (frame_[p] != f && !IsFree(p))) continue;
        if (seen.insert(p).second) stack.push_back(p);
      }
    }
    std::vector<int> out(seen.begin(), seen.end());
    std::sort(out.begin(), out.end());  // the file's order
    return out;
  }

  // A node name not yet used in the graph.
  std::string UniqueName(const std::string& base) {
    std::string name = base;
    for (int k = 1; index_.contains(name) || used_.contains(name); ++k) {
      name = absl::StrCat(base, "_", k);
    }
    used_.insert(name);
    return name;
  }

  // A loop variable: its Enter, Merge, Switch, NextIteration and Exits.
  struct LoopVar {
    int enter, merge, next, switch_;
    std::vector<int> exits;
  };

  absl::Status Functionalize(int f) {
    Index();  // earlier loops added nodes
    const std::string& frame = frames_[f].name;
    std::vector<int> members;
    for (int i = 0; i < def_.node_size(); ++i) {
      if (frame_[i] == f && !removed_.contains(def_.node(i).name())) members.push_back(i);
    }
    // The LoopCond, the variables and the invariants.
    int loop_cond = -1;
    std::vector<LoopVar> vars;
    std::vector<int> invariants;
    for (int i : members) {
      const tf::NodeDef& n = def_.node(i);
      if (IsLoopCond(n)) {
        if (loop_cond >= 0)
          return NodeError(n, absl::StrCat("a second LoopCond in frame \"", frame, "\""));
        loop_cond = i;
      }
    }
    if (loop_cond < 0) {
      return absl::InvalidArgumentError(absl::StrCat("loop frame \"", frame, "\" has no LoopCond"));
    }
    if (def_.node(loop_cond).input_size() < 1)
      return NodeError(def_.node(loop_cond), "has no input");
    for (int i : members) {
      const tf::NodeDef& n = def_.node(i);
      if (!IsEnter(n)) continue;
      const tf::AttrValue* type = FindAttr(n, "T");
      if (type == nullptr || type->value_case() != tf::AttrValue::kType) {
        return NodeError(n, "has no type attribute \"T\"");
      }
      const tf::AttrValue* constant = FindAttr(n, "is_constant");
      if (constant != nullptr && constant->b()) {
        invariants.push_back(i);
        continue;
      }
      DFC_ASSIGN_OR_RETURN(LoopVar var, Variable(i, loop_cond));
      vars.push_back(std::move(var));
    }

    absl::flat_hash_set<int> structural = {loop_cond};
    for (const LoopVar& v : vars) {
      structural.insert({v.enter, v.merge, v.next, v.switch_});
    }
    for (int c : invariants) structural.insert(c);
    // Inside the body, what stands for the variables: a placeholder named as the Switch, where
    // the body read the Switch's output 1 or the Merge. (The condition's placeholders are named
    // as the Merges, which it reads; the invariants' as their Enters.)
    absl::flat_hash_map<std::string, std::string> body_renames;
    for (const LoopVar& v : vars) {
      const std::string& sw = def_.node(v.switch_).name();
      body_renames[def_.node(v.merge).name()] = sw;
      body_renames[TensorId{sw, 1}.ToString()] = sw;
    }

    // The condition: what the predicate reads, down to the Merges and invariants.
    const TensorId pred = ParseNodeInput(def_.node(loop_cond).input(0)).tensor;
    const int pred_node = IndexOf(pred.node);
    std::vector<int> cond_nodes = Closure({pred_node}, f, structural);
    // The body: what the NextIterations read, and every other node of the frame (an Assert,
    // an inner loop) but those only the condition needs.
    const absl::flat_hash_set<int> cond_set(cond_nodes.begin(), cond_nodes.end());
    std::vector<int> body_roots;
    for (const LoopVar& v : vars) {
      const int p = IndexOf(ParseNodeInput(def_.node(v.next).input(0)).tensor.node);
      if (p >= 0) body_roots.push_back(p);
    }
    for (int i : members) {
      if (!structural.contains(i) && !cond_set.contains(i) && !IsExit(def_.node(i))) {
        body_roots.push_back(i);
      }
    }
    std::vector<int> body_nodes = Closure(body_roots, f, structural);

    const std::string while_name = UniqueName(frame);
    const std::string cond_name = absl::StrCat(while_name, "/cond");
    const std::string body_name = absl::StrCat(while_name, "/body");
    // The While's inputs: the variables' Enters, then the invariants'.
    std::vector<int> enters;
    for (const LoopVar& v : vars) enters.push_back(v.enter);
    enters.insert(enters.end(), invariants.begin(), invariants.end());
    tf::AttrValue types;
    for (int e : enters) types.mutable_list()->add_type(FindAttr(def_.node(e), "T")->type());

    // The condition's arguments are the Merges' names, the body's the Switches'; both take
    // the invariants by their Enters' names.
    FunctionBody cond, body;
    for (size_t k = 0; k < enters.size(); ++k) {
      const tf::NodeDef& enter = def_.node(enters[k]);
      const bool variable = k < vars.size();
      const std::string& cond_arg = variable ? def_.node(vars[k].merge).name() : enter.name();
      const std::string& body_arg = variable ? def_.node(vars[k].switch_).name() : enter.name();
      *cond.graph.add_node() = Placeholder(cond_arg, *FindAttr(enter, "T"));
      *body.graph.add_node() = Placeholder(body_arg, *FindAttr(enter, "T"));
      cond.args.push_back(cond_arg);
      body.args.push_back(body_arg);
    }
    DFC_RETURN_IF_ERROR(CopyNodes(cond_nodes, structural, {}, cond));
    DFC_RETURN_IF_ERROR(CopyNodes(body_nodes, structural, body_renames, body));
    cond.results.push_back(pred.ToString());
    for (const LoopVar& v : vars) {
      body.results.push_back(Rename(def_.node(v.next).input(0), body_renames));
    }
    for (int c : invariants) body.results.push_back(def_.node(c).name());
    // What runs for its effects: body nodes that no other body node reads.
    absl::flat_hash_set<std::string> read;
    for (const tf::NodeDef& n : body.graph.node()) {
      for (const std::string& text : n.input()) read.insert(ParseNodeInput(text).tensor.node);
    }
    for (const std::string& r : body.results) read.insert(ParseNodeInput(r).tensor.node);
    for (const tf::NodeDef& n : body.graph.node()) {
      if (!read.contains(n.name()) && n.op() != "Placeholder") body.targets.push_back(n.name());
    }
    bodies_[cond_name] = std::move(cond);
    bodies_[body_name] = std::move(body);

    // The While node, and each Exit an Identity of its output.
    tf::NodeDef w;
    w.set_name(while_name);
    w.set_op("While");
    absl::flat_hash_set<std::string> controls;
    for (int e : enters) {
      w.add_input(def_.node(e).input(0));  // its value
      for (const std::string& text : def_.node(e).input()) {
        if (absl::StartsWith(text, "^")) controls.insert(text);
      }
    }
    std::vector<std::string> sorted(controls.begin(), controls.end());
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& c : sorted) w.add_input(c);
    (*w.mutable_attr())["T"] = types;
    (*w.mutable_attr())["cond"].mutable_func()->set_name(cond_name);
    (*w.mutable_attr())["body"].mutable_func()->set_name(body_name);
    if (const tf::AttrValue* p = FindAttr(def_.node(enters.front()), "parallel_iterations")) {
      (*w.mutable_attr())["parallel_iterations"] = *p;
    }
    for (size_t k = 0; k < vars.size(); ++k) {
      for (int x : vars[k].exits) {
        tf::NodeDef& exit = *def_.mutable_node(x);
        const tf::AttrValue type = *FindAttr(def_.node(vars[k].enter), "T");
        std::vector<std::string> keep;
        for (const std::string& text : exit.input()) {
          if (absl::StartsWith(text, "^")) keep.push_back(text);
        }
        exit.set_op("Identity");
        exit.clear_input();
        exit.add_input(TensorId{while_name, static_cast<int>(k)}.ToString());
        for (const std::string& c : keep) exit.add_input(c);
        exit.clear_attr();
        (*exit.mutable_attr())["T"] = type;
      }
    }
    // The frame's nodes go; the While node lives in the parent frame.
    for (int i : members) {
      if (!IsExit(def_.node(i))) removed_.insert(def_.node(i).name());
    }
    // The While node joins the graph in the parent frame, where an outer loop finds it among
    // its members.
    *def_.add_node() = std::move(w);
    frame_.push_back(frames_[f].parent);
    return absl::OkStatus();
  }

  absl::StatusOr<LoopVar> Variable(int enter, int loop_cond) const {
    const tf::NodeDef& e = def_.node(enter);
    LoopVar v{.enter = enter, .merge = -1, .next = -1, .switch_ = -1, .exits = {}};
    for (int c : ConsumersOf(enter)) {
      if (!IsMerge(def_.node(c))) {
        return NodeError(e, absl::StrCat("a loop variable's Enter must feed only its Merge, but \"",
                                         def_.node(c).name(), "\" (", def_.node(c).op(),
                                         ") reads it"));
      }
      v.merge = c;
    }
    if (v.merge < 0) return NodeError(e, "a loop variable's Enter feeds no Merge");
    const tf::NodeDef& m = def_.node(v.merge);
    for (const std::string& text : m.input()) {
      const int p = IndexOf(ParseNodeInput(text).tensor.node);
      if (p >= 0 && IsNextIteration(def_.node(p))) v.next = p;
    }
    if (v.next < 0 || m.input_size() != 2) {
      return NodeError(m, "a loop variable's Merge must read its Enter and a NextIteration");
    }
    for (int c : ConsumersOf(v.merge)) {
      const tf::NodeDef& s = def_.node(c);
      if (!IsSwitch(s)) continue;
      if (s.input_size() < 2 ||
          ParseNodeInput(s.input(1)).tensor.node != def_.node(loop_cond).name()) {
        return NodeError(s, "switches a loop variable on something other than its LoopCond");
      }
      v.switch_ = c;
    }
    if (v.switch_ < 0)
      return NodeError(m, "a loop variable's Merge feeds no Switch on the LoopCond");
    for (int c : ConsumersOf(v.switch_)) {
      for (const std::string& text : def_.node(c).input()) {
        const NodeInput in = ParseNodeInput(text);
        if (in.tensor.node != def_.node(v.switch_).name() || in.control || in.tensor.index != 0) {
          continue;
        }
        if (!IsExit(def_.node(c))) {
          return NodeError(def_.node(c), "reads a loop's Switch output 0, which only an Exit may");
        }
        v.exits.push_back(c);
      }
    }
    return v;
  }

  static std::string Rename(const std::string& text,
                            const absl::flat_hash_map<std::string, std::string>& renames) {
    const NodeInput in = ParseNodeInput(text);
    if (in.control) return text;
    if (const auto it = renames.find(in.tensor.ToString()); it != renames.end()) {
      return it->second;
    }
    return text;
  }

  // Copies `nodes` into `out`, their inputs renamed; control inputs on the loop's own
  // plumbing (the pivot Merges and Switches) are dropped, as the body is run only when they
  // would have let it.
  absl::Status CopyNodes(const std::vector<int>& nodes, const absl::flat_hash_set<int>& structural,
                         const absl::flat_hash_map<std::string, std::string>& renames,
                         FunctionBody& out) const {
    for (int i : nodes) {
      tf::NodeDef n = def_.node(i);
      n.clear_input();
      for (const std::string& text : def_.node(i).input()) {
        const NodeInput in = ParseNodeInput(text);
        const int p = IndexOf(in.tensor.node);
        if (in.control) {
          if (p >= 0 && (structural.contains(p) && !IsEnter(def_.node(p)))) continue;
          if (p >= 0 && IsEnter(def_.node(p))) {
            const tf::AttrValue* constant = FindAttr(def_.node(p), "is_constant");
            if (constant == nullptr || !constant->b()) continue;
          }
          n.add_input(text);
          continue;
        }
        if (p >= 0 && IsMerge(def_.node(p)) && in.tensor.index != 0 && structural.contains(p)) {
          return NodeError(n, "reads a loop Merge's value_index, which dfc does not carry");
        }
        n.add_input(Rename(text, renames));
      }
      *out.graph.add_node() = std::move(n);
    }
    return absl::OkStatus();
  }

  tf::GraphDef& def_;
  FunctionBodies& bodies_;
  absl::flat_hash_map<std::string, int> index_;
  absl::flat_hash_map<int, std::vector<int>> consumers_;
  std::vector<Frame> frames_;
  std::vector<int> frame_;  // by node index
  absl::flat_hash_set<std::string> removed_;
  absl::flat_hash_set<std::string> used_;
};

}  // namespace

namespace control_flow_internal {

absl::Status FunctionalizeLoops(tf::GraphDef& def, FunctionBodies& bodies) {
  Functionalizer functionalizer(def, bodies);
  return functionalizer.Run();
}

}  // namespace control_flow_internal
}  // namespace dfc
