// The partitioner: hand-made graphs for each rule (chains, diamonds, shared inputs, cycles
// through host nodes and control edges, outputs and fetches) and seeded random DAGs checked
// against the invariants: an acyclic unit graph, a valid schedule, connected and maximal
// clusters, and exact input and output lists.
#include "graph/partition.h"

#include <algorithm>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dfc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// A node named `name` reading `inputs` ("x", "x:1", "^x" for a control input). The op only
// matters for its output count: AddN has one, Split has `num_split`.
Node Op(std::string name, std::vector<std::string> inputs, int num_split = 0) {
  Node node;
  node.name = std::move(name);
  node.op = num_split > 0 ? "Split" : "AddN";
  for (const std::string& input : inputs) {
    if (input[0] == '^') {
      node.control_inputs.push_back(input.substr(1));
    } else {
      node.inputs.push_back(*TensorId::Parse(input));
    }
  }
  if (num_split > 0) {
    node.attrs["num_split"] = int64_t{num_split};
  } else {
    node.attrs["N"] = static_cast<int64_t>(node.inputs.size());
  }
  return node;
}

Graph MakeGraph(std::vector<Node> nodes) {
  absl::StatusOr<Graph> graph = Graph::FromNodes(std::move(nodes));
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

// Clusterable: every node whose name is listed.
std::function<bool(int)> Only(const Graph& g, std::set<std::string> names) {
  return [&g, names = std::move(names)](int i) { return names.contains(g.node(i).name); };
}

std::vector<std::string> Names(const Graph& g, const std::vector<int>& nodes) {
  std::vector<std::string> out;
  for (int i : nodes) out.push_back(g.node(i).name);
  return out;
}

std::vector<std::string> Strings(const std::vector<TensorId>& ids) {
  std::vector<std::string> out;
  for (const TensorId& id : ids) out.push_back(id.ToString());
  return out;
}

// The unit of each node: clusters are units 0..C-1, host node i is unit C + i.
std::vector<int> UnitOf(const Graph& g, const Partition& p) {
  std::vector<int> unit(g.num_nodes(), -1);
  for (int i = 0; i < g.num_nodes(); ++i) {
    unit[i] = p.cluster_of[i] >= 0 ? p.cluster_of[i] : static_cast<int>(p.clusters.size()) + i;
  }
  return unit;
}

// Edges between nodes that both run: {producer, consumer, is_data}.
struct Edge {
  int from;
  int to;
  bool data;
};
std::vector<Edge> Edges(const Graph& g, const std::vector<int>& nodes) {
  const std::set<int> run(nodes.begin(), nodes.end());
  std::vector<Edge> edges;
  for (int i : nodes) {
    for (const TensorId& input : g.node(i).inputs) {
      const int p = g.IndexOf(input.node);
      if (run.contains(p)) edges.push_back({p, i, true});
    }
    for (const std::string& control : g.node(i).control_inputs) {
      const int p = g.IndexOf(control);
      if (run.contains(p)) edges.push_back({p, i, false});
    }
  }
  return edges;
}

// Whether the graph of units (after renaming `merge_from` to `merge_into`) has a cycle.
bool UnitGraphHasCycle(const std::vector<Edge>& edges, std::vector<int> unit, int num_units,
                       int merge_from = -1, int merge_into = -1) {
  for (int& u : unit) {
    if (u == merge_from) u = merge_into;
  }
  std::vector<std::set<int>> succ(num_units);
  for (const Edge& e : edges) {
    if (unit[e.from] != unit[e.to]) succ[unit[e.from]].insert(unit[e.to]);
  }
  std::vector<int> indegree(num_units, 0);
  for (const auto& s : succ) {
    for (int w : s) ++indegree[w];
  }
  std::queue<int> ready;
  for (int u = 0; u < num_units; ++u) {
    if (indegree[u] == 0) ready.push(u);
  }
  int seen = 0;
  while (!ready.empty()) {
    const int u = ready.front();
    ready.pop();
    ++seen;
    for (int w : succ[u]) {
      if (--indegree[w] == 0) ready.push(w);
    }
  }
  return seen != num_units;
}

// Every invariant PartitionGraph promises, checked independently of how it works.
void CheckInvariants(const Graph& g, const std::vector<int>& nodes,
                     const std::function<bool(int)>& clusterable,
                     const std::vector<TensorId>& fetches, const Partition& p) {
  const std::set<int> run(nodes.begin(), nodes.end());
  ASSERT_EQ(p.cluster_of.size(), static_cast<size_t>(g.num_nodes()));
  for (int i = 0; i < g.num_nodes(); ++i) {
    const bool should = run.contains(i) && clusterable(i);
    EXPECT_EQ(p.cluster_of[i] >= 0, should) << g.node(i).name;
  }
  // Each host node and each cluster is scheduled exactly once.
  const std::vector<int> unit = UnitOf(g, p);
  const int num_units = static_cast<int>(p.clusters.size()) + g.num_nodes();
  std::vector<int> slot(num_units, -1);
  for (size_t k = 0; k < p.schedule.size(); ++k) {
    const ExecutionUnit& u = p.schedule[k];
    ASSERT_NE(u.node >= 0, u.cluster >= 0);
    const int id = u.cluster >= 0 ? u.cluster : static_cast<int>(p.clusters.size()) + u.node;
    if (u.node >= 0) {
      EXPECT_TRUE(run.contains(u.node));
      EXPECT_EQ(p.cluster_of[u.node], -1);
    }
    EXPECT_EQ(slot[id], -1) << "scheduled twice";
    slot[id] = static_cast<int>(k);
  }
  for (int i : nodes) EXPECT_GE(slot[unit[i]], 0) << g.node(i).name << " never scheduled";

  // Every edge goes forward in the schedule (so the unit graph is acyclic).
  const std::vector<Edge> edges = Edges(g, nodes);
  for (const Edge& e : edges) {
    if (unit[e.from] == unit[e.to]) continue;
    EXPECT_LT(slot[unit[e.from]], slot[unit[e.to]])
        << g.node(e.from).name << " -> " << g.node(e.to).name;
  }
  EXPECT_FALSE(UnitGraphHasCycle(edges, unit, num_units));

  std::vector<int> position(g.num_nodes(), -1);
  for (size_t k = 0; k < nodes.size(); ++k) position[nodes[k]] = static_cast<int>(k);
  const absl::flat_hash_set<TensorId> fetched(fetches.begin(), fetches.end());
  for (size_t c = 0; c < p.clusters.size(); ++c) {
    const Cluster& cluster = p.clusters[c];
    ASSERT_FALSE(cluster.nodes.empty());
    const std::set<int> members(cluster.nodes.begin(), cluster.nodes.end());
    for (size_t k = 0; k < cluster.nodes.size(); ++k) {
      EXPECT_EQ(p.cluster_of[cluster.nodes[k]], static_cast<int>(c));
      if (k > 0) {
        EXPECT_LT(position[cluster.nodes[k - 1]], position[cluster.nodes[k]]);
      }
    }
    // Connected through data edges inside the cluster.
    std::set<int> reached = {cluster.nodes[0]};
    for (bool grew = true; grew;) {
      grew = false;
      for (const Edge& e : edges) {
        if (!e.data || !members.contains(e.from) || !members.contains(e.to)) continue;
        if (reached.contains(e.from) != reached.contains(e.to)) {
          reached.insert(e.from);
          reached.insert(e.to);
          grew = true;
        }
      }
    }
    EXPECT_EQ(reached.size(), members.size()) << "cluster " << c << " is not connected";

    // Inputs: the distinct tensors read inside and produced outside, in first-use order.
    std::vector<TensorId> inputs;
    for (int i : cluster.nodes) {
      for (const TensorId& input : g.node(i).inputs) {
        if (members.contains(g.IndexOf(input.node))) continue;
        if (std::find(inputs.begin(), inputs.end(), input) == inputs.end()) {
          inputs.push_back(input);
        }
      }
    }
    EXPECT_EQ(Strings(cluster.inputs), Strings(inputs)) << "cluster " << c;
    // Outputs: produced inside, read by a node outside or fetched.
    std::set<std::pair<int, int>> outputs;
    for (int i : nodes) {
      if (members.contains(i)) continue;
      for (const TensorId& input : g.node(i).inputs) {
        const int producer = g.IndexOf(input.node);
        if (members.contains(producer)) outputs.insert({position[producer], input.index});
      }
    }
    for (const TensorId& f : fetched) {
      const int producer = g.IndexOf(f.node);
      if (members.contains(producer)) outputs.insert({position[producer], f.index});
    }
    std::vector<TensorId> expected_outputs;
    for (const auto& [pos, index] : outputs) {
      expected_outputs.push_back({g.node(nodes[pos]).name, index});
    }
    EXPECT_EQ(Strings(cluster.outputs), Strings(expected_outputs)) << "cluster " << c;
  }

  // Maximal: any two clusters joined by a data edge would close a cycle if merged, or exceed
  // kMaxClusterNodes.
  for (const Edge& e : edges) {
    const int a = p.cluster_of[e.from];
    const int b = p.cluster_of[e.to];
    if (!e.data || a < 0 || b < 0 || a == b) continue;
    if (p.clusters[a].nodes.size() + p.clusters[b].nodes.size() > kMaxClusterNodes) continue;
    EXPECT_TRUE(UnitGraphHasCycle(edges, unit, num_units, b, a))
        << "clusters of " << g.node(e.from).name << " and " << g.node(e.to).name
        << " could be merged";
  }
}

Partition PartitionAndCheck(const Graph& g, const std::function<bool(int)>& clusterable,
                            const std::vector<TensorId>& fetches) {
  absl::StatusOr<Partition> p = PartitionGraph(g, g.topological_order(), clusterable, fetches);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return {};
  CheckInvariants(g, g.topological_order(), clusterable, fetches, *p);
  return *std::move(p);
}

TEST(PartitionTest, ChainIsOneCluster) {
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("b", {"a"}), Op("c", {"b"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b", "c"}), {{"c", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_THAT(Names(g, p.clusters[0].nodes), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Strings(p.clusters[0].inputs), ElementsAre("x"));
  EXPECT_THAT(Strings(p.clusters[0].outputs), ElementsAre("c"));
  ASSERT_EQ(p.schedule.size(), 2u);
  EXPECT_EQ(p.schedule[0].node, g.IndexOf("x"));
  EXPECT_EQ(p.schedule[1].cluster, 0);
}

// A chain longer than kMaxClusterNodes is cut into clusters of at most that many nodes, each
// reading the last one's output.
TEST(PartitionTest, ALongChainIsCutIntoBoundedClusters) {
  const int length = 2 * static_cast<int>(kMaxClusterNodes) + 10;
  std::vector<Node> nodes = {Op("x", {})};
  std::set<std::string> chain;
  for (int k = 0; k < length; ++k) {
    const std::string name = absl::StrCat("n", k);
    nodes.push_back(Op(name, {k == 0 ? "x" : absl::StrCat("n", k - 1)}));
    chain.insert(name);
  }
  const Graph g = MakeGraph(std::move(nodes));
  const Partition p = PartitionAndCheck(g, Only(g, chain), {{absl::StrCat("n", length - 1), 0}});
  ASSERT_EQ(p.clusters.size(), 3u);
  size_t total = 0;
  for (const Cluster& c : p.clusters) {
    EXPECT_LE(c.nodes.size(), kMaxClusterNodes);
    EXPECT_EQ(c.inputs.size(), 1u);
    total += c.nodes.size();
  }
  EXPECT_EQ(total, static_cast<size_t>(length));
}

// Fusion::kSeparateContractions keeps each MatMul a kernel of its own and fuses the rest on
// either side of it; Fusion::kNone makes every node one.
TEST(PartitionTest, FusionModes) {
  Node matmul = Op("m", {"a", "w"});
  matmul.op = "MatMul";
  matmul.attrs.clear();
  const Graph g = MakeGraph({Op("x", {}), Op("w", {}), Op("a", {"x"}), Op("b", {"a"}),
                             std::move(matmul), Op("c", {"m", "b"}), Op("d", {"c"})});
  const std::set<std::string> device = {"a", "b", "m", "c", "d"};
  auto clusters = [&](Fusion fusion) {
    absl::StatusOr<Partition> p =
        PartitionGraph(g, g.topological_order(), Only(g, device), {{"d", 0}}, nullptr, fusion);
    EXPECT_TRUE(p.ok()) << p.status();
    std::vector<std::vector<std::string>> names;
    if (p.ok()) {
      for (const Cluster& c : p->clusters) names.push_back(Names(g, c.nodes));
    }
    return names;
  };
  EXPECT_EQ(clusters(Fusion::kAll).size(), 1u);
  EXPECT_EQ(clusters(Fusion::kNone).size(), 5u);
  EXPECT_THAT(clusters(Fusion::kSeparateContractions),
              UnorderedElementsAre(ElementsAre("a", "b"), ElementsAre("m"), ElementsAre("c", "d")));
}

TEST(PartitionTest, DiamondIsOneClusterAndSharedValueStaysInside) {
  const Graph g =
      MakeGraph({Op("x", {}), Op("a", {"x"}), Op("b", {"a"}), Op("c", {"a"}), Op("d", {"b", "c"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b", "c", "d"}), {{"d", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  // In the graph's topological order, which puts c or b first.
  EXPECT_THAT(Names(g, p.clusters[0].nodes), UnorderedElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(Strings(p.clusters[0].inputs), ElementsAre("x"));
  EXPECT_THAT(Strings(p.clusters[0].outputs), ElementsAre("d"));
}

TEST(PartitionTest, InputReadTwiceIsOneArgument) {
  const Graph g = MakeGraph({Op("x", {}), Op("y", {}), Op("a", {"x", "y"}), Op("b", {"x", "a"}),
                             Op("c", {"a", "b", "x"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b", "c"}), {{"c", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_THAT(Strings(p.clusters[0].inputs), ElementsAre("x", "y"));
}

TEST(PartitionTest, PathThroughHostNodeKeepsClustersApart) {
  // a -> h -> b and a -> b: one cluster {a, b} would need h's result before it runs.
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("h", {"a"}), Op("b", {"a", "h"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b"}), {{"b", 0}});
  ASSERT_EQ(p.clusters.size(), 2u);
  EXPECT_NE(p.cluster_of[g.IndexOf("a")], p.cluster_of[g.IndexOf("b")]);
  EXPECT_THAT(Strings(p.clusters[0].outputs), ElementsAre("a"));
  EXPECT_THAT(Strings(p.clusters[1].inputs), ElementsAre("a", "h"));
  ASSERT_EQ(p.schedule.size(), 4u);
  EXPECT_EQ(p.schedule[1].cluster, p.cluster_of[g.IndexOf("a")]);
  EXPECT_EQ(p.schedule[2].node, g.IndexOf("h"));
  EXPECT_EQ(p.schedule[3].cluster, p.cluster_of[g.IndexOf("b")]);
}

TEST(PartitionTest, PathThroughControlEdgeKeepsClustersApart) {
  // a -> b by data, and a -> h -> b by control edges only.
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("h", {"^a"}), Op("b", {"a", "^h"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b"}), {{"b", 0}});
  EXPECT_EQ(p.clusters.size(), 2u);
}

TEST(PartitionTest, ControlEdgeInsideClusterIsFine) {
  const Graph g = MakeGraph(
      {Op("x", {}), Op("a", {"x"}), Op("b", {"a", "^a"}), Op("h", {"^b"}), Op("c", {"b", "^x"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b", "c"}), {{"c", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_THAT(Names(g, p.clusters[0].nodes), ElementsAre("a", "b", "c"));
  // h waits for b, which is inside the cluster.
  EXPECT_EQ(p.schedule.back().node, g.IndexOf("h"));
}

// A TF1 cond's branches run or not as the Switch decides: a cluster keeps to one branch, and
// what follows the Merge of both branches fuses with what ran before the Switch.
TEST(PartitionTest, ACondsBranchesAreClustersOfTheirOwn) {
  const auto control = [](std::string name, std::string op, std::vector<std::string> inputs) {
    Node node = Op(std::move(name), std::move(inputs));
    node.op = std::move(op);
    node.attrs = {{"T", DType::kFloat}, {"N", static_cast<int64_t>(node.inputs.size())}};
    return node;
  };
  const Graph g = MakeGraph(
      {Op("x", {}), Op("pred", {}), Op("pre", {"x"}), control("sw", "Switch", {"x", "pred"}),
       Op("t1", {"sw:1"}), Op("t2", {"t1", "pre"}), Op("f1", {"sw:0"}), Op("waits", {"pre", "^t1"}),
       control("m", "Merge", {"t2", "f1"}), Op("beside", {"x"}), Op("after", {"m", "beside"}),
       control("m2", "Merge", {"t2", "pre"}), Op("late", {"m2", "beside"})});
  absl::StatusOr<Partition> p =
      PartitionGraph(g, g.topological_order(),
                     Only(g, {"pre", "t1", "t2", "f1", "waits", "beside", "after", "late"}),
                     {{"after", 0}, {"late", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  const auto cluster_of = [&](absl::string_view name) { return p->cluster_of[g.IndexOf(name)]; };
  EXPECT_EQ(cluster_of("t1"), cluster_of("t2"));
  // A control input from a branch puts a node on it too.
  EXPECT_NE(cluster_of("waits"), cluster_of("pre"));
  EXPECT_NE(cluster_of("t1"), cluster_of("f1"));
  EXPECT_NE(cluster_of("t1"), cluster_of("pre"));
  EXPECT_EQ(cluster_of("beside"), cluster_of("after"));
  // A Merge of a branch and an unconditional value: its own context.
  EXPECT_NE(cluster_of("late"), cluster_of("beside"));
}

TEST(PartitionTest, UnconnectedNodesAreSeparateKernels) {
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("b", {"x"}), Op("h", {"a", "b"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b"}), {});
  EXPECT_EQ(p.clusters.size(), 2u);
}

TEST(PartitionTest, MultiOutputCluster) {
  // s has two outputs, both read outside; a is read inside (by b) and outside (by h1 twice).
  const Graph g =
      MakeGraph({Op("x", {}), Op("s", {"x"}, /*num_split=*/2), Op("a", {"s:0"}),
                 Op("b", {"a", "s:1"}), Op("h1", {"a", "a", "s:1"}), Op("h2", {"b", "s:0"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"s", "a", "b"}), {});
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_THAT(Strings(p.clusters[0].outputs), ElementsAre("s", "s:1", "a", "b"));
}

TEST(PartitionTest, FetchInsideClusterIsAnOutput) {
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("b", {"a"}), Op("c", {"b"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "b", "c"}), {{"b", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  // c is read by nothing and fetched by no one: it is not an output.
  EXPECT_THAT(Strings(p.clusters[0].outputs), ElementsAre("b"));
}

TEST(PartitionTest, LaterMergeUnblocksEarlierOne) {
  // a -> d is refused at first: the control edge a -> c and c -> d put c between them. Once c
  // joins d, the control edge is a direct one and a may join too, but only if refused merges
  // are retried.
  const Graph g =
      MakeGraph({Op("x", {}), Op("a", {"x"}), Op("c", {"x", "^a"}), Op("d", {"a", "c"})});
  const Partition p = PartitionAndCheck(g, Only(g, {"a", "c", "d"}), {{"d", 0}});
  ASSERT_EQ(p.clusters.size(), 1u);
  EXPECT_THAT(Names(g, p.clusters[0].nodes), ElementsAre("a", "c", "d"));
}

TEST(PartitionTest, FedTensorsAreInputs) {
  // x is fed, so it is not among the nodes that run.
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("b", {"a"})});
  const std::vector<int> nodes = {g.IndexOf("a"), g.IndexOf("b")};
  absl::StatusOr<Partition> p = PartitionGraph(g, nodes, Only(g, {"a", "b"}), {{"b", 0}});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->clusters.size(), 1u);
  EXPECT_THAT(Strings(p->clusters[0].inputs), ElementsAre("x"));
  EXPECT_EQ(p->schedule.size(), 1u);
}

TEST(PartitionTest, Errors) {
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"})});
  auto all = [](int) { return true; };
  absl::StatusOr<Partition> p = PartitionGraph(g, {g.IndexOf("a"), g.IndexOf("x")}, all, {});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("topological"));
  p = PartitionGraph(g, g.topological_order(), all, {{"nope", 0}});
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("nope"));
  p = PartitionGraph(g, {0, 0}, all, {});
  EXPECT_FALSE(p.ok());
  p = PartitionGraph(g, {7}, all, {});
  EXPECT_FALSE(p.ok());
}

TEST(PartitionTest, Deterministic) {
  const Graph g = MakeGraph({Op("x", {}), Op("a", {"x"}), Op("h", {"a"}), Op("b", {"a", "h"}),
                             Op("c", {"x"}), Op("d", {"c", "b"})});
  auto clusterable = Only(g, {"a", "b", "c", "d"});
  const Partition p1 = PartitionAndCheck(g, clusterable, {{"d", 0}});
  const Partition p2 = PartitionAndCheck(g, clusterable, {{"d", 0}});
  EXPECT_EQ(p1.cluster_of, p2.cluster_of);
  ASSERT_EQ(p1.schedule.size(), p2.schedule.size());
  for (size_t k = 0; k < p1.schedule.size(); ++k) {
    EXPECT_EQ(p1.schedule[k].node, p2.schedule[k].node);
    EXPECT_EQ(p1.schedule[k].cluster, p2.schedule[k].cluster);
  }
}

// Seeded random DAGs of 20-40 nodes: some with two outputs, some control edges, a random half
// or so clusterable.
TEST(PartitionTest, RandomGraphsKeepEveryInvariant) {
  int total_clusters = 0;
  int multi_node_clusters = 0;
  for (int seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int n = uniform(20, 40);
    std::vector<Node> nodes;
    std::vector<int> outputs;
    std::set<std::string> clusterable;
    const int percent_clusterable = uniform(30, 90);
    for (int k = 0; k < n; ++k) {
      std::vector<std::string> inputs;
      const int num_inputs = k == 0 ? 0 : uniform(0, 3);
      for (int j = 0; j < num_inputs; ++j) {
        const int p = uniform(std::max(0, k - 8), k - 1);  // mostly local, as real graphs are
        inputs.push_back(absl::StrCat("n", p, ":", uniform(0, outputs[p] - 1)));
      }
      if (k > 0 && uniform(0, 9) == 0) inputs.push_back(absl::StrCat("^n", uniform(0, k - 1)));
      const int num_outputs = uniform(0, 4) == 0 ? 2 : 1;
      nodes.push_back(Op(absl::StrCat("n", k), inputs, num_outputs == 2 ? 2 : 0));
      outputs.push_back(num_outputs);
      if (uniform(0, 99) < percent_clusterable) clusterable.insert(absl::StrCat("n", k));
    }
    const Graph g = MakeGraph(std::move(nodes));
    std::vector<TensorId> fetches;
    for (int f = 0; f < 2; ++f) fetches.push_back({absl::StrCat("n", uniform(0, n - 1)), 0});
    SCOPED_TRACE(absl::StrCat("seed ", seed));
    const Partition p = PartitionAndCheck(g, Only(g, clusterable), fetches);
    total_clusters += static_cast<int>(p.clusters.size());
    for (const Cluster& c : p.clusters) multi_node_clusters += c.nodes.size() > 1;
    if (::testing::Test::HasFailure()) break;
  }
  // The generator makes interesting cases, not only singletons.
  EXPECT_GT(multi_node_clusters, 200);
  EXPECT_GT(total_clusters, multi_node_clusters);
}

}  // namespace
}  // namespace dfc
