// Partitioning into device clusters (see partition.h).
//
// Every node starts as its own execution unit. Data edges between clusterable units are merged
// greedily in topological order; a merge of U -> V is refused when some other unit lies on a
// path from U to V, because contracting U and V would then put that unit on a cycle. Refused
// merges are retried until nothing changes, since a later merge can swallow the unit that was
// in the way; at the fixed point every cluster is maximal. The contracted graph stays acyclic
// throughout, so the schedule is a topological order of it.
#include "graph/partition.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <queue>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/ops.h"

namespace dfc {
namespace {

class Partitioner {
 public:
  Partitioner(const Graph& graph, const std::vector<int>& nodes) : graph_(graph), nodes_(nodes) {}

  absl::Status Init(const std::function<bool(int)>& clusterable,
                    const std::function<bool(int, int)>& compile_time) {
    const int n = graph_.num_nodes();
    pos_.assign(n, -1);
    for (size_t k = 0; k < nodes_.size(); ++k) {
      const int i = nodes_[k];
      if (i < 0 || i >= n) {
        return absl::InvalidArgumentError(absl::StrCat("node index ", i, " is not in the graph"));
      }
      if (pos_[i] >= 0) {
        return graph_.node(i).Error("listed twice in the nodes to partition");
      }
      pos_[i] = static_cast<int>(k);
    }
    succ_.assign(n, {});
    data_inputs_.assign(n, {});
    clusterable_.assign(n, false);
    unit_of_.assign(n, -1);
    members_.assign(n, {});
    min_pos_.assign(n, 0);
    max_pos_.assign(n, 0);
    for (int i : nodes_) {
      const Node& node = graph_.node(i);
      auto add_edge = [&](absl::string_view from) -> absl::StatusOr<int> {
        const int p = graph_.IndexOf(from);
        if (p < 0 || pos_[p] < 0) return -1;  // not run here: a fed tensor
        if (pos_[p] >= pos_[i]) {
          return node.Error(
              absl::StrCat("the nodes to partition are not in topological order: "
                           "input \"",
                           from, "\" comes after its consumer"));
        }
        succ_[p].push_back(i);
        return p;
      };
      clusterable_[i] = clusterable(i);
      for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
        if (clusterable_[i] && compile_time && compile_time(i, j)) {
          compile_time_inputs_.insert({i, j});
          continue;
        }
        absl::StatusOr<int> p = add_edge(node.inputs[j].node);
        if (!p.ok()) return p.status();
        if (*p >= 0) data_inputs_[i].push_back(*p);
      }
      for (const std::string& control : node.control_inputs) {
        if (absl::StatusOr<int> p = add_edge(control); !p.ok()) return p.status();
      }
      unit_of_[i] = i;
      members_[i] = {i};
      min_pos_[i] = max_pos_[i] = pos_[i];
    }
    frontier_ = succ_;
    visit_stamp_.assign(n, 0);
    ComputeBranchContexts();
    return absl::OkStatus();
  }

  // With `separate_contractions`, a contraction joins no other node.
  void MergeClusters(bool separate_contractions) {
    auto alone = [&](int i) {
      if (!separate_contractions) return false;
      const OpDef* def = FindOpDef(graph_.node(i).op);
      return def != nullptr && def->family == "contractions";
    };
    bool changed = true;
    while (changed) {
      changed = false;
      for (int i : nodes_) {
        if (!clusterable_[i] || alone(i)) continue;
        for (int p : data_inputs_[i]) {
          if (!clusterable_[p] || alone(p)) continue;
          const int u = unit_of_[p];
          const int v = unit_of_[i];
          if (u == v || context_[i] != context_[p] ||
              members_[u].size() + members_[v].size() > kMaxClusterNodes ||
              ReachesThroughOthers(u, v)) {
            continue;
          }
          Merge(u, v);
          changed = true;
        }
      }
    }
  }

  Partition Build(const absl::flat_hash_set<TensorId>& fetches) {
    Partition part;
    part.cluster_of.assign(graph_.num_nodes(), -1);
    std::vector<int> cluster_of_unit(graph_.num_nodes(), -1);
    for (int unit : Schedule()) {
      if (!clusterable_[members_[unit].front()]) {
        part.schedule.push_back({.node = unit});
        continue;
      }
      const int c = static_cast<int>(part.clusters.size());
      cluster_of_unit[unit] = c;
      Cluster cluster;
      cluster.nodes = members_[unit];
      std::sort(cluster.nodes.begin(), cluster.nodes.end(),
                [&](int a, int b) { return pos_[a] < pos_[b]; });
      for (int i : cluster.nodes) part.cluster_of[i] = c;
      part.clusters.push_back(std::move(cluster));
      part.schedule.push_back({.cluster = c});
    }

    // Which outputs of each node are read outside its unit.
    std::vector<std::vector<int>> read_outside(graph_.num_nodes());
    auto in_same_unit = [&](int p, int i) {
      return p >= 0 && pos_[p] >= 0 && unit_of_[p] == unit_of_[i];
    };
    for (int i : nodes_) {
      const std::vector<TensorId>& inputs = graph_.node(i).inputs;
      for (int j = 0; j < static_cast<int>(inputs.size()); ++j) {
        if (compile_time_inputs_.contains({i, j})) continue;
        const int p = graph_.IndexOf(inputs[j].node);
        if (p >= 0 && pos_[p] >= 0 && !in_same_unit(p, i)) {
          read_outside[p].push_back(inputs[j].index);
        }
      }
    }
    for (const TensorId& fetch : fetches) {
      const int p = graph_.IndexOf(fetch.node);
      if (pos_[p] >= 0) read_outside[p].push_back(fetch.index);
    }

    for (Cluster& cluster : part.clusters) {
      absl::flat_hash_set<TensorId> seen;
      for (int i : cluster.nodes) {
        const std::vector<TensorId>& inputs = graph_.node(i).inputs;
        for (int j = 0; j < static_cast<int>(inputs.size()); ++j) {
          const int p = graph_.IndexOf(inputs[j].node);
          if (in_same_unit(p, i) || compile_time_inputs_.contains({i, j})) continue;
          if (seen.insert(inputs[j]).second) cluster.inputs.push_back(inputs[j]);
        }
      }
      for (int i : cluster.nodes) {
        std::vector<int>& outs = read_outside[i];
        std::sort(outs.begin(), outs.end());
        outs.erase(std::unique(outs.begin(), outs.end()), outs.end());
        for (int index : outs) cluster.outputs.push_back({graph_.node(i).name, index});
      }
    }
    return part;
  }

 private:
  // A node's branch context: the Switch outputs (and Merges) whose liveness its own depends on,
  // TensorFlow's deadness being a conjunction along data and control edges. Nodes of one
  // context run together or not at all, so a cluster takes nodes of one context only and runs
  // when its inputs are live (runtime/control_flow.h). A Merge of the two outputs of one
  // Switch, both under the same context, is live where that Switch is; any other Merge is a
  // context of its own (conservative: its consumers only fuse among themselves).
  void ComputeBranchContexts() {
    using Literals = std::vector<std::string>;  // sorted: "switch:k" or "merge"
    absl::flat_hash_map<Literals, int> ids = {{Literals{}, 0}};
    std::vector<Literals> literals(graph_.num_nodes());
    context_.assign(graph_.num_nodes(), 0);
    bool any = false;
    for (int i : nodes_) any |= IsSwitch(graph_.node(i)) || IsMerge(graph_.node(i));
    if (!any) return;
    auto output_literals = [&](const TensorId& id) -> Literals {
      const int p = graph_.IndexOf(id.node);
      if (p < 0 || pos_[p] < 0) return {};  // fed: live
      Literals out = literals[p];
      if (IsSwitch(graph_.node(p))) {
        out.push_back(absl::StrCat(id.node, ":", id.index));
        std::sort(out.begin(), out.end());
      }
      return out;
    };
    for (int i : nodes_) {
      const Node& node = graph_.node(i);
      Literals mine;
      if (IsMerge(node)) {
        mine = MergeLiterals(node, output_literals);
      } else if (node.op != "ControlTrigger") {
        for (const TensorId& id : node.inputs) {
          const Literals in = output_literals(id);
          mine.insert(mine.end(), in.begin(), in.end());
        }
        for (const std::string& c : node.control_inputs) {
          const int p = graph_.IndexOf(c);
          if (p >= 0 && pos_[p] >= 0)
            mine.insert(mine.end(), literals[p].begin(), literals[p].end());
        }
        std::sort(mine.begin(), mine.end());
        mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
      }
      context_[i] = ids.try_emplace(mine, static_cast<int>(ids.size())).first->second;
      literals[i] = std::move(mine);
    }
  }

  // (C, s:0) and (C, s:1) merge to C; anything else is the Merge's own literal.
  template <typename OutputLiterals>
  static std::vector<std::string> MergeLiterals(const Node& merge,
                                                const OutputLiterals& output_literals) {
    std::vector<std::vector<std::string>> in;
    for (const TensorId& id : merge.inputs) in.push_back(output_literals(id));
    if (in.size() == 1 && merge.control_inputs.empty()) return in[0];
    if (in.size() == 2 && merge.control_inputs.empty() && in[0].size() == in[1].size()) {
      std::vector<std::string> only0, only1, common;
      std::set_difference(in[0].begin(), in[0].end(), in[1].begin(), in[1].end(),
                          std::back_inserter(only0));
      std::set_difference(in[1].begin(), in[1].end(), in[0].begin(), in[0].end(),
                          std::back_inserter(only1));
      std::set_intersection(in[0].begin(), in[0].end(), in[1].begin(), in[1].end(),
                            std::back_inserter(common));
      const auto switch_of = [](const std::string& literal) {
        return literal.substr(0, literal.rfind(':'));
      };
      if (only0.size() == 1 && only1.size() == 1 && only0[0] != only1[0] &&
          switch_of(only0[0]) == switch_of(only1[0])) {
        return common;
      }
    }
    return {absl::StrCat("merge ", merge.name)};
  }

  // True if a path leads from unit u to unit v through some third unit. Units whose first node
  // comes after v's last cannot lead back to v, which bounds the search.
  bool ReachesThroughOthers(int u, int v) {
    ++stamp_;
    const int limit = max_pos_[v];
    std::vector<int> stack;
    auto push = [&](int w) {
      if (w == u || w == v || visit_stamp_[w] == stamp_ || min_pos_[w] > limit) return;
      visit_stamp_[w] = stamp_;
      stack.push_back(w);
    };
    for (int s : Frontier(u)) push(unit_of_[s]);
    while (!stack.empty()) {
      const int w = stack.back();
      stack.pop_back();
      for (int s : Frontier(w)) {
        if (unit_of_[s] == v) return true;
        push(unit_of_[s]);
      }
    }
    return false;
  }

  // The consumers outside `unit` of its members: the list kept for it, less the consumers that
  // merges have since brought inside (dropped for good: a unit only grows). Walking these, not
  // every member's consumers, keeps a merge into a large cluster from costing its size.
  const std::vector<int>& Frontier(int unit) {
    std::vector<int>& f = frontier_[unit];
    f.erase(std::remove_if(f.begin(), f.end(), [&](int s) { return unit_of_[s] == unit; }),
            f.end());
    return f;
  }

  void Merge(int u, int v) {
    // Keep the larger member list; the smaller one moves.
    if (members_[u].size() < members_[v].size()) std::swap(u, v);
    for (int m : members_[v]) unit_of_[m] = u;
    members_[u].insert(members_[u].end(), members_[v].begin(), members_[v].end());
    members_[v].clear();
    frontier_[u].insert(frontier_[u].end(), frontier_[v].begin(), frontier_[v].end());
    frontier_[v].clear();
    min_pos_[u] = std::min(min_pos_[u], min_pos_[v]);
    max_pos_[u] = std::max(max_pos_[u], max_pos_[v]);
  }

  // Units in a topological order of the contracted graph; among ready units, the one whose
  // first node comes first, so the order is stable.
  std::vector<int> Schedule() {
    std::vector<int> pending(graph_.num_nodes(), 0);
    for (int i : nodes_) {
      for (int s : succ_[i]) {
        if (unit_of_[s] != unit_of_[i]) ++pending[unit_of_[s]];
      }
    }
    using Entry = std::pair<int, int>;  // (first position, unit)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
    int num_units = 0;
    for (int i : nodes_) {
      if (unit_of_[i] != i) continue;
      ++num_units;
      if (pending[i] == 0) ready.push({min_pos_[i], i});
    }
    std::vector<int> order;
    while (!ready.empty()) {
      const int unit = ready.top().second;
      ready.pop();
      order.push_back(unit);
      for (int m : members_[unit]) {
        for (int s : succ_[m]) {
          const int w = unit_of_[s];
          if (w != unit && --pending[w] == 0) ready.push({min_pos_[w], w});
        }
      }
    }
    // Merges never close a cycle, so every unit is scheduled.
    DFC_CHECK(static_cast<int>(order.size()) == num_units);
    return order;
  }

  const Graph& graph_;
  const std::vector<int>& nodes_;
  std::vector<int> pos_;                       // position in nodes_, -1 if not run
  std::vector<std::vector<int>> succ_;         // consumers in nodes_, data and control
  std::vector<std::vector<int>> data_inputs_;  // producers in nodes_ of data inputs
  std::vector<bool> clusterable_;
  std::vector<int> context_;  // branch context (ComputeBranchContexts), 0: always runs
  absl::flat_hash_set<std::pair<int, int>> compile_time_inputs_;  // (node, input) not run-time
  // Units are named by a member node; unit_of_ maps each node to its unit.
  std::vector<int> unit_of_;
  std::vector<std::vector<int>> members_;
  std::vector<std::vector<int>> frontier_;  // per unit: consumers perhaps outside it (Frontier)
  std::vector<int> min_pos_;
  std::vector<int> max_pos_;
  std::vector<int> visit_stamp_;
  int stamp_ = 0;
};

// `nodes` less those whose every consumer reads them only when compiling (a Shape a Reshape
// folded, the axes of a Sum): their values are already in the kernels. Nodes nothing consumes
// (targets), fetched nodes and stateful nodes always run.
std::vector<int> NodesThatRun(const Graph& graph, const std::vector<int>& nodes,
                              const absl::flat_hash_set<int>& fetched_nodes,
                              const std::function<bool(int)>& clusterable,
                              const std::function<bool(int, int)>& compile_time) {
  absl::flat_hash_map<int, std::vector<std::pair<int, int>>> consumers;  // node -> (consumer, j)
  for (int i : nodes) {
    if (i < 0 || i >= graph.num_nodes()) continue;  // Partitioner::Init reports it
    const Node& node = graph.node(i);
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      consumers[graph.IndexOf(node.inputs[j].node)].push_back({i, j});
    }
    for (const std::string& control : node.control_inputs) {
      consumers[graph.IndexOf(control)].push_back({i, -1});
    }
  }
  absl::flat_hash_set<int> pruned;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    const int i = *it;
    if (i < 0 || i >= graph.num_nodes() || fetched_nodes.contains(i)) continue;
    const OpDef* def = FindOpDef(graph.node(i).op);
    auto c = consumers.find(i);
    if (def == nullptr || def->stateful || c == consumers.end()) continue;
    const bool only_compile_time =
        std::all_of(c->second.begin(), c->second.end(), [&](const std::pair<int, int>& use) {
          return pruned.contains(use.first) ||
                 (use.second >= 0 && clusterable(use.first) && compile_time(use.first, use.second));
        });
    if (only_compile_time) pruned.insert(i);
  }
  std::vector<int> run;
  for (int i : nodes) {
    if (!pruned.contains(i)) run.push_back(i);
  }
  return run;
}

}  // namespace

const Node* FirstReader(const Graph& graph, const Cluster& cluster, const TensorId& id) {
  for (int n : cluster.nodes) {
    const Node& node = graph.node(n);
    if (std::find(node.inputs.begin(), node.inputs.end(), id) != node.inputs.end()) return &node;
  }
  return nullptr;
}

absl::StatusOr<Partition> PartitionGraph(const Graph& graph, const std::vector<int>& nodes,
                                         const std::function<bool(int)>& clusterable,
                                         const std::vector<TensorId>& fetches,
                                         const std::function<bool(int, int)>& compile_time,
                                         Fusion fusion) {
  absl::flat_hash_set<TensorId> fetched;
  absl::flat_hash_set<int> fetched_nodes;
  for (const TensorId& fetch : fetches) {
    absl::StatusOr<int> i = graph.ResolveTensor(fetch, "fetch");
    if (!i.ok()) return i.status();
    fetched.insert(fetch);
    fetched_nodes.insert(*i);
  }
  const std::vector<int> run =
      compile_time ? NodesThatRun(graph, nodes, fetched_nodes, clusterable, compile_time) : nodes;
  Partitioner partitioner(graph, run);
  if (absl::Status s = partitioner.Init(clusterable, compile_time); !s.ok()) return s;
  if (fusion != Fusion::kNone) {
    partitioner.MergeClusters(/*separate_contractions=*/fusion == Fusion::kSeparateContractions);
  }
  return partitioner.Build(fetched);
}

}  // namespace dfc
