#!/usr/bin/env node
// The ONNX Runtime peer: what people deploy on CPUs, beside bench/torch_peer.py's PyTorch. Runs
// the ONNX exports of the PyTorch twins that `torch_peer.py --export-onnx DIR` wrote (DIR's
// manifest.json) with onnxruntime-node's CPU execution provider, and writes Google Benchmark's
// JSON as torch_peer.py does, the variant `onnxruntime` (`cnn_lenet/onnxruntime/batch:16`),
// with the same counters: the batch and, where the work is counted, GFLOP/s over the same
// flops (conv_GFLOP for a zoo model, GFLOP for the subgraphs and the GEMM).
//
// Each model first runs once on the inputs PyTorch was fed, and its output is checked against
// PyTorch's (|ort - torch| <= 1e-3 |torch| + 1e-4 max|torch| for every element, float32 through
// other kernels and orders of summation); one that differs, or that ONNX Runtime cannot load,
// is recorded as failed, untimed. Then the timing of torch_peer.py: three warm-up calls, then
// calls one by one for at least --min-time seconds and --min-runs calls, each end to end
// (`session.run` with the feeds, the output in JavaScript), their median.
//
// The session: intraOpNumThreads --threads (DFC_BENCH_THREADS), interOpNumThreads 1, sequential
// execution, graph optimisation level "all", ONNX Runtime's defaults otherwise (its threads
// spin while they wait, as PyTorch's OpenMP threads do).
//
//   NODE_PATH=build/ort-peer/node_modules node bench/ort_peer.js --models DIR --threads 2 \
//       --out bench/results/ort_peer.json --context-from bench/results/peer_bench.json
//
// bench/peer installs onnxruntime-node into build/ort-peer with npm (--ignore-scripts: its
// install script fetches GPU libraries; the CPU library is inside the package).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const kUsage =
    'usage: node bench/ort_peer.js --models DIR --out FILE [--threads N] [--context-from FILE]\n' +
    '                              [--min-time SECONDS] [--min-runs N]\n';
// The check's tolerance: relative to the element, and to the output's largest magnitude.
const kRelative = 1e-3;
const kAbsolute = 1e-4;

function parseArgs(argv) {
  const args = {threads: 2, minTime: 1.0, minRuns: 5, contextFrom: null, models: null, out: null};
  const flags = {
    '--models': v => args.models = v,
    '--out': v => args.out = v,
    '--threads': v => args.threads = Number(v),
    '--context-from': v => args.contextFrom = v,
    '--min-time': v => args.minTime = Number(v),
    '--min-runs': v => args.minRuns = Number(v),
  };
  for (let i = 0; i < argv.length; ++i) {
    if (argv[i] === '--help' || argv[i] === '-h') {
      process.stdout.write(kUsage);
      process.exit(0);
    }
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (!(flag in flags)) fail(`unknown argument ${argv[i]}\n${kUsage}`);
    const value = inline !== undefined ? inline : argv[++i];
    if (value === undefined) fail(`${flag} needs a value`);
    flags[flag](value);
  }
  if (!args.models || !args.out) fail(`--models and --out are required\n${kUsage}`);
  if (!(args.threads >= 1) || !(args.minRuns >= 1) || !(args.minTime >= 0)) {
    fail('--threads and --min-runs must be at least 1, --min-time not negative');
  }
  return args;
}

function fail(message) {
  process.stderr.write(`ort_peer.js: ${message}\n`);
  process.exit(1);
}

function loadOrt() {
  try {
    return require('onnxruntime-node');
  } catch (error) {
    fail(`${error.message.split('\n')[0]}: bench/peer installs onnxruntime-node into ` +
         'build/ort-peer (NODE_PATH=build/ort-peer/node_modules)');
  }
}

// The version of the onnxruntime-node package that `require` found.
function ortVersion() {
  try {
    return require('onnxruntime-node/package.json').version;
  } catch {
    return 'unknown';
  }
}

function readFloats(file) {
  const bytes = fs.readFileSync(file);
  // A Buffer may be a view into a larger pool: copy out its own bytes.
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
}

// Why `actual` (an ort.Tensor) is not PyTorch's output `expected` ({shape, data}), or null.
function mismatch(actual, expected) {
  const dims = Array.from(actual.dims, Number);
  if (dims.join(',') !== expected.shape.join(',')) {
    return `output shape [${dims}], PyTorch's [${expected.shape}]`;
  }
  let largest = 0;
  for (const x of expected.data) largest = Math.max(largest, Math.abs(x));
  let worst = -1, worstExcess = 0;
  for (let i = 0; i < expected.data.length; ++i) {
    const allowed = kRelative * Math.abs(expected.data[i]) + kAbsolute * largest;
    const excess = Math.abs(actual.data[i] - expected.data[i]) - allowed;
    // A NaN on either side is as far off as can be.
    const e = Number.isNaN(excess) ? Infinity : excess;
    if (e > worstExcess) {
      worst = i;
      worstExcess = e;
    }
  }
  if (worst < 0) return null;
  return `output element ${worst} is ${actual.data[worst]}, PyTorch's ${expected.data[worst]} ` +
         `(tolerance ${kRelative} relative + ${kAbsolute} of the largest, ${largest})`;
}

async function timeCalls(call, args) {
  for (let i = 0; i < 3; ++i) await call();
  const times = [];
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) * 1e-9;
  while (times.length < args.minRuns || elapsed() < args.minTime) {
    const t0 = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - t0) * 1e-9);
  }
  return times;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// One benchmark's entry, as torch_peer.py's result() writes it, printed as it is made.
function result(entry, times) {
  const m = median(times);
  const out = {
    name: `${entry.name}/real_time`, run_name: `${entry.name}/real_time`,
    run_type: 'iteration', iterations: times.length,
    real_time: m * 1e3, cpu_time: m * 1e3, time_unit: 'ms', batch: entry.batch,
  };
  let line = `${entry.name}: ${(m * 1e3).toFixed(3)} ms (median of ${times.length})`;
  if (entry.flops !== null && entry.flops !== undefined) {
    out[entry.counter] = entry.flops * 1e-9;
    out['GFLOP/s'] = entry.flops * 1e-9 / m;
    line += `, ${(entry.flops * 1e-9 / m).toFixed(2)} ` +
            `${entry.counter === 'conv_GFLOP' ? 'conv ' : ''}GFLOP/s`;
  }
  out.mean_ms = times.reduce((a, b) => a + b, 0) / times.length * 1e3;
  // A fold, not Math.min(...times): a fast model's 100,000 samples overflow the call stack.
  out.min_ms = times.reduce((a, b) => Math.min(a, b), Infinity) * 1e3;
  out.max_ms = times.reduce((a, b) => Math.max(a, b), -Infinity) * 1e3;
  process.stderr.write(`${line}\n`);
  return out;
}

// A benchmark that did not run, as Google Benchmark records one (error_occurred).
function failed(entry, message) {
  process.stderr.write(`${entry.name}: FAILED: ${message}\n`);
  return {
    name: `${entry.name}/real_time`, run_name: `${entry.name}/real_time`,
    run_type: 'iteration', iterations: 0, real_time: 0, cpu_time: 0, time_unit: 'ms',
    batch: entry.batch, error_occurred: true, error_message: message,
  };
}

function context(args, manifest, options) {
  let out = {host_name: os.hostname(), num_cpus: os.cpus().length};
  if (args.contextFrom) out = JSON.parse(fs.readFileSync(args.contextFrom, 'utf8')).context || out;
  out.date = new Date().toISOString().replace(/\.\d+Z$/, '+00:00');
  // This run's, not the copied one's: a busy machine slows a peer whose threads spin.
  out.load_avg = os.loadavg();
  out.executable = 'bench/ort_peer.js';
  out.peer = `ONNX Runtime ${ortVersion()} (npm onnxruntime-node, node ${process.version}), ` +
             `CPU execution provider, graph optimisation ${options.graphOptimizationLevel}, ` +
             `${options.intraOpNumThreads} threads; models from ${manifest.exporter}, ` +
             `opset ${manifest.opset}`;
  out.onnxruntime = {version: ortVersion(), session_options: options};
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const manifest = JSON.parse(fs.readFileSync(path.join(args.models, 'manifest.json'), 'utf8'));
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const benchmarks = [];
  for (const entry of manifest.entries) {
    let session;
    try {
      session = await ort.InferenceSession.create(path.join(args.models, entry.model), options);
    } catch (error) {
      benchmarks.push(failed(entry, `ONNX Runtime cannot load ${entry.model}: ${error.message}`));
      continue;
    }
    const feeds = {};
    for (const input of entry.inputs) {
      feeds[input.name] = new ort.Tensor('float32', readFloats(path.join(args.models, input.file)),
                                         input.shape);
    }
    const call = () => session.run(feeds);
    const outputs = await call();
    const expected = {
      shape: entry.output.shape,
      data: readFloats(path.join(args.models, entry.output.file)),
    };
    const why = mismatch(outputs[session.outputNames[0]], expected);
    if (why !== null) {
      benchmarks.push(failed(entry, `differs from PyTorch: ${why}`));
    } else {
      benchmarks.push(result(entry, await timeCalls(call, args)));
    }
    await session.release();
  }
  const out = {context: context(args, manifest, options), benchmarks};
  fs.writeFileSync(args.out, JSON.stringify(out, null, 2) + '\n');
}

main().catch(error => fail(error.stack || String(error)));
