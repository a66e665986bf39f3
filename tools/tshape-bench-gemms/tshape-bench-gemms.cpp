//===- tshape-bench-gemms.cpp - Time a list of GEMMs with the runtime -----===//
//
// tshape-bench-gemms [options] GEMMS.csv [-o MEASURED.csv]
//
// Times each GEMM of a CSV list with the tshape runtime (cuBLASLt or the
// CPU reference) and writes one row per GEMM: the shape, then the median,
// min and max time, TFLOP/s, cuBLASLt's algorithm, tile and wavesCount, and
// with --check the error against an fp64 reference. The first
// eight output columns are tshape-calibrate's input format.
//
// Plain C++ on the runtime's C ABI, with no LLVM or MLIR: it builds with
// -DTSHAPE_RUNTIME_ONLY=ON on a GPU machine that has CUDA but no LLVM, and
// bench/gpu-sweeps.sh (PHASE=measure) runs it there on GEMM lists that
// tshape-opt wrote elsewhere.
//
//===----------------------------------------------------------------------===//

#include "tshape/Runtime/Runtime.h"
#include "tshape/Support/Csv.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace tshape;

namespace {
const char *kUsage =
    "usage: tshape-bench-gemms [options] GEMMS.csv\n"
    "\n"
    "Times every GEMM of GEMMS.csv with the tshape runtime and writes one CSV\n"
    "row per GEMM. GEMMS.csv needs the columns batch,m,n,k,dtype,trans_a,\n"
    "trans_b (any order, other columns ignored; dtype one of bf16, fp16, fp32,\n"
    "tf32, fp8; trans_a = 1: A stored K x M; trans_b = 1: B stored N x K).\n"
    "Repeated shapes are timed once. A GEMM that fails (out of memory, a\n"
    "dtype the device lacks, a check above tolerance) is reported with its\n"
    "line and left out of the output; the others are still timed, and the\n"
    "exit status is 1.\n"
    "\n"
    "Output columns: batch,m,n,k,dtype,trans_a,trans_b,measured_us,min_us,\n"
    "max_us,tflops,algo_id,tile_id,tile_m,tile_n,waves_count,max_rel_error\n"
    "(the first eight are tshape-calibrate's input).\n"
    "\n"
    "options:\n"
    "  --backend=cublas|cpu   runtime backend (default: cublas)\n"
    "  --warmup=N             untimed runs before timing (default: 5)\n"
    "  --iters=N              timed runs; the median is reported (default: 20)\n"
    "  --check                also compare each GEMM with an fp64 reference\n"
    "  --samples=N            output elements the check compares (default:\n"
    "                         512; 0: all)\n"
    "  --tolerance=X          fail when the check's error (in units of the\n"
    "                         typical output magnitude) is above X (default:\n"
    "                         8 u_out + 2 K 2^-23 per dtype and K,\n"
    "                         docs/runtime.md)\n"
    "  --backend-lib=PATH     the cuBLASLt backend library (default: next to\n"
    "                         libtshape_runtime.so)\n"
    "  -o PATH                write the CSV here (default: stdout)\n"
    "  --help                 this text\n";

/// The tool's name, the start of each line it writes to stderr.
constexpr const char kTool[] = "tshape-bench-gemms";

int fail(const std::string &msg) {
  std::cerr << kTool << ": error: " << msg << "\n";
  return 1;
}

struct Options {
  std::string backend = "cublas", input, output = "-", backendLib;
  long warmup = 5, iters = 20, samples = 512;
  bool check = false;
  double tolerance = -1;
};

bool parseLong(const std::string &s, long &out) {
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end || errno)
    return false;
  out = v;
  return true;
}

/// Parses argv; returns an error message, or "" on success.
std::string parseArgs(int argc, char **argv, Options &o, bool &help) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name, std::string &out) {
      std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) != 0)
        return false;
      out = a.substr(prefix.size());
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      help = true;
    } else if (a == "--check") {
      o.check = true;
    } else if (value("--backend", v)) {
      if (v != "cpu" && v != "cublas")
        return "--backend must be cpu or cublas, got '" + v + "'";
      o.backend = v;
    } else if (value("--warmup", v)) {
      if (!parseLong(v, o.warmup) || o.warmup < 0)
        return "--warmup must be an integer >= 0, got '" + v + "'";
    } else if (value("--iters", v)) {
      if (!parseLong(v, o.iters) || o.iters < 1)
        return "--iters must be an integer >= 1, got '" + v + "'";
    } else if (value("--samples", v)) {
      if (!parseLong(v, o.samples) || o.samples < 0)
        return "--samples must be an integer >= 0, got '" + v + "'";
    } else if (value("--tolerance", v)) {
      char *end = nullptr;
      o.tolerance = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(o.tolerance > 0))
        return "--tolerance must be a positive number, got '" + v + "'";
    } else if (value("--backend-lib", v)) {
      o.backendLib = v;
    } else if (a == "-o") {
      if (++i == argc)
        return "-o needs a path";
      o.output = argv[i];
    } else if (a.size() > 1 && a[0] == '-') {
      return "unknown option '" + a + "' (see --help)";
    } else if (o.input.empty()) {
      o.input = a;
    } else {
      return "more than one input file ('" + o.input + "', '" + a + "')";
    }
  }
  if (!help && o.input.empty())
    return "no input file (see --help)";
  return "";
}

struct Row {
  int line;
  tshapeRtGemmDesc desc;
  std::string dtype;
};

bool parseDType(const std::string &s, tshapeRtDType &t) {
  static const std::map<std::string, tshapeRtDType> names = {
      {"bf16", TSHAPE_RT_BF16}, {"fp16", TSHAPE_RT_FP16},
      {"fp32", TSHAPE_RT_FP32}, {"tf32", TSHAPE_RT_TF32},
      {"fp8", TSHAPE_RT_FP8}};
  auto it = names.find(s);
  if (it == names.end())
    return false;
  t = it->second;
  return true;
}

/// Reads the GEMM list; returns an error message ("" on success).
std::string readRows(const std::string &path, const Options &o,
                     std::vector<Row> &rows) {
  std::ifstream in(path);
  if (!in)
    return "cannot read '" + path + "': " + std::strerror(errno);
  std::map<std::string, size_t> col;
  const char *needed[] = {"batch", "m", "n", "k", "dtype", "trans_a",
                          "trans_b"};
  std::string error;
  csv::forEachRecord(in, [&](int lineNo, const std::vector<std::string> &f) {
    std::string where = path + ":" + std::to_string(lineNo) + ": ";
    auto bad = [&](const std::string &why) {
      error = where + why;
      return false;
    };
    if (col.empty()) {
      for (size_t i = 0; i < f.size(); ++i)
        col[f[i]] = i;
      for (const char *n : needed)
        if (!col.count(n))
          return bad(std::string("the header has no column '") + n +
                     "' (needs batch,m,n,k,dtype,trans_a,trans_b)");
      return true;
    }
    if (f.size() != col.size())
      return bad("expected " + std::to_string(col.size()) +
                 " fields as in the header, got " + std::to_string(f.size()));
    Row r{lineNo, {}, f[col["dtype"]]};
    long v[4];
    const char *dims[] = {"batch", "m", "n", "k"};
    for (int i = 0; i < 4; ++i)
      if (!parseLong(f[col[dims[i]]], v[i]) || v[i] < 1)
        return bad(std::string(dims[i]) + " must be a positive integer, got '" +
                   f[col[dims[i]]] + "'");
    tshapeRtDType dt;
    if (!parseDType(r.dtype, dt))
      return bad("unknown dtype '" + r.dtype +
                 "' (bf16, fp16, fp32, tf32, fp8)");
    long ta, tb;
    if (!parseLong(f[col["trans_a"]], ta) || (ta != 0 && ta != 1) ||
        !parseLong(f[col["trans_b"]], tb) || (tb != 0 && tb != 1))
      return bad("trans_a and trans_b must be 0 or 1");
    r.desc = {v[0],        v[1],          v[2],         v[3],
              dt,          int32_t(ta),   int32_t(tb),  int32_t(o.warmup),
              int32_t(o.iters), uint64_t(lineNo)};
    rows.push_back(r);
    return true;
  });
  if (!error.empty())
    return error;
  if (col.empty())
    return path + ": empty file: expected a CSV header";
  return "";
}
} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  std::string err = parseArgs(argc, argv, o, help);
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  if (!err.empty())
    return fail(err);
  std::vector<Row> rows;
  err = readRows(o.input, o, rows);
  if (!err.empty())
    return fail(err);

  tshapeRtContext *ctx = nullptr;
  tshapeRtStatus st = tshapeRtCreate(
      o.backend.c_str(), o.backendLib.empty() ? nullptr : o.backendLib.c_str(),
      &ctx);
  if (st != TSHAPE_RT_OK) {
    std::string msg = "backend " + o.backend + ": " +
                      tshapeRtStatusString(st) + ": " + tshapeRtLastError(ctx);
    tshapeRtDestroy(ctx);
    return fail(msg);
  }
  // Rows are written as they are timed, so a run stopped at a time limit
  // keeps what it measured.
  std::ofstream file;
  if (o.output != "-") {
    file.open(o.output);
    if (!file) {
      tshapeRtDestroy(ctx);
      return fail("cannot write '" + o.output + "'");
    }
  }
  std::ostream &csv = o.output == "-" ? std::cout : file;
  csv << "batch,m,n,k,dtype,trans_a,trans_b,measured_us,min_us,max_us,"
         "tflops,algo_id,tile_id,tile_m,tile_n,waves_count,max_rel_error\n";
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int, int, int>;
  // A shape's result, or empty when it failed (its error already printed).
  std::map<Key, std::optional<std::pair<tshapeRtGemmResult, double>>> done;
  int timed = 0, failed = 0;
  for (const Row &r : rows) {
    const tshapeRtGemmDesc &d = r.desc;
    Key key{d.batch, d.m, d.n, d.k, int(d.dtype), d.transA, d.transB};
    auto it = done.find(key);
    if (it == done.end()) {
      // One GEMM that fails (out of memory, a dtype the device lacks, a
      // check above tolerance) is reported at its line and left out; the
      // others are still timed, so a long list on a lent GPU is not lost
      // to one row. The exit status is 1 all the same.
      std::string where = o.input + ":" + std::to_string(r.line) + ": ";
      tshapeRtGemmResult res{};
      double rel = -1;
      std::string error;
      st = tshapeRtTimeGemm(ctx, &d, &res);
      if (st == TSHAPE_RT_OK && o.check)
        st = tshapeRtCheckGemm(ctx, &d, o.samples, &rel);
      double tol = o.tolerance > 0 ? o.tolerance
                                   : tshapeRtCheckTolerance(d.dtype, d.k);
      if (st != TSHAPE_RT_OK) {
        error = tshapeRtStatusString(st) + std::string(": ") +
                tshapeRtLastError(ctx);
      } else if (o.check && rel > tol) {
        char buf[160];
        std::snprintf(buf, sizeof(buf),
                      "check failed: error %.2e > %s tolerance %.1e", rel,
                      r.dtype.c_str(), tol);
        error = buf;
      }
      std::optional<std::pair<tshapeRtGemmResult, double>> result;
      if (error.empty()) {
        result = std::make_pair(res, rel);
        ++timed;
      } else {
        fail(where + error);
        ++failed;
      }
      it = done.emplace(key, result).first;
    }
    if (!it->second)
      continue;
    const tshapeRtGemmResult &res = it->second->first;
    char buf[512];
    std::snprintf(buf, sizeof(buf),
                  "%lld,%lld,%lld,%lld,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,"
                  "%d,%.3f,",
                  (long long)d.batch, (long long)d.m, (long long)d.n,
                  (long long)d.k, r.dtype.c_str(), d.transA, d.transB,
                  res.medianUs, res.minUs, res.maxUs, res.tflops, res.algoId,
                  res.tileId, res.tileM, res.tileN, double(res.wavesCount));
    csv << buf;
    if (it->second->second >= 0) {
      std::snprintf(buf, sizeof(buf), "%.3e", it->second->second);
      csv << buf;
    }
    csv << "\n" << std::flush;
  }
  std::cerr << kTool << ": " << rows.size() << " GEMMs (" << timed
            << " distinct shapes timed";
  if (failed)
    std::cerr << ", " << failed << " failed and left out";
  std::cerr << ") on " << tshapeRtDeviceName(ctx) << "\n";
  tshapeRtDestroy(ctx);
  if (!csv)
    return fail("cannot write '" + o.output + "'");
  return failed ? 1 : 0;
}
