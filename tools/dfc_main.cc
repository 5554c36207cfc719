// dfc: the command line of the dataflow-graph compiler.
#include <iostream>
#include <string>
#include <vector>

#include "tools/cli.h"

namespace {

constexpr char kUsage[] =
    "usage: dfc COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  inspect GRAPH [--json]                 what a GraphDef holds and what dfc supports\n"
    "  inspect GRAPH --clusters [--ir]        the clusters a graph compiles to, and their IR\n"
    "  compile GRAPH --device D -o DIR        write the plan and OpenCL kernels for device D\n"
    "  run GRAPH --fetch T[,T...] [--feed NAME=FILE.npy]... [--target NODE]...\n"
    "      [--init NODE]... [--steps K] [--out DIR] [--device D] [--reference]\n"
    "                                         run a graph and print or save its outputs\n"
    "  bench GRAPH --variants [--batch N,...] [--json FILE]\n"
    "                                         time the variants the rewrite rules make, per "
    "cluster\n"
    "  profile GRAPH [--fetch T[,T...]] [--steps K] [--trace FILE] [--report] [--sort COL]\n"
    "                                         time every kernel, transfer and op of K runs\n"
    "  conformance DIR [--reference | --interpret | --device D] [--json FILE] [--filter REGEX]\n"
    "                                         check dfc against TensorFlow-made test cases\n"
    "\n"
    "GRAPH is a frozen TensorFlow GraphDef, binary (.pb) or text (.pbtxt).\n"
    "Exit status: 0 success, 1 a problem with the input, 2 bad usage.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return dfc::cli::kExitUsage;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "inspect") return dfc::cli::Inspect(args);
  if (command == "run") return dfc::cli::Run(args);
  if (command == "profile") return dfc::cli::Profile(args);
  if (command == "compile") return dfc::cli::Compile(args);
  if (command == "conformance") return dfc::cli::Conformance(args);
  if (command == "bench") return dfc::cli::Bench(args);
  if (command == "help" || command == "--help" || command == "-h") {
    std::cout << kUsage;
    return dfc::cli::kExitOk;
  }
  std::cerr << "dfc: usage error: unknown command \"" << command << "\"\n" << kUsage;
  return dfc::cli::kExitUsage;
}
