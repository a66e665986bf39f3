//===- RunGemms.cpp - tshape-run-gemms ------------------------------------===//
//
// Loads the tshape runtime on demand (llvm::sys::DynamicLibrary: tshape-opt
// links no runtime and no cuBLAS), times every static contraction on the
// chosen backend, optionally checks results against an fp64 reference, and
// attaches the measurements as attributes.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Dialect/TShape/IR/GemmAttributes.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Runtime/Runtime.h"
#include "tshape/Transforms/Passes.h"
#include "tshape/PassDiagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPERUNGEMMS
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;

namespace {

/// The runtime's entry points, resolved from the loaded library.
struct RuntimeApi {
  decltype(&tshapeRtCreate) create = nullptr;
  decltype(&tshapeRtDestroy) destroy = nullptr;
  decltype(&tshapeRtLastError) lastError = nullptr;
  decltype(&tshapeRtStatusString) statusString = nullptr;
  decltype(&tshapeRtDeviceName) deviceName = nullptr;
  decltype(&tshapeRtTimeGemm) time = nullptr;
  decltype(&tshapeRtCheckGemm) check = nullptr;
  decltype(&tshapeRtCheckTolerance) tolerance = nullptr;
};

tshapeRtDType rtDType(model::DType t) {
  switch (t) {
  case model::DType::BF16:
    return TSHAPE_RT_BF16;
  case model::DType::FP16:
    return TSHAPE_RT_FP16;
  case model::DType::FP32:
    return TSHAPE_RT_FP32;
  case model::DType::TF32:
    return TSHAPE_RT_TF32;
  case model::DType::FP8:
    return TSHAPE_RT_FP8;
  }
  return TSHAPE_RT_FP32;
}

struct TShapeRunGemmsPass
    : public tshape::impl::TShapeRunGemmsBase<TShapeRunGemmsPass> {
  using Base::Base;

  std::string defaultLibrary() {
    if (std::optional<std::string> env =
            llvm::sys::Process::GetEnv("TSHAPE_RUNTIME_LIB"))
      return *env;
    std::string exe =
        llvm::sys::fs::getMainExecutable(nullptr, (void *)&rtDType);
    llvm::SmallString<256> path(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(exe)));
    llvm::sys::path::append(path, "lib", "libtshape_runtime.so");
    return std::string(path);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (iters < 1 || warmup < 0) {
      emitError(module.getLoc())
          << passPrefix(*this) << "iters must be >= 1 and warmup >= 0";
      return signalPassFailure();
    }
    std::string path = runtimeLib.empty() ? defaultLibrary() : runtimeLib;
    std::string err;
    llvm::sys::DynamicLibrary lib =
        llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &err);
    if (!lib.isValid()) {
      emitError(module.getLoc())
          << passPrefix(*this) << "cannot load the runtime '" << path
          << "': " << err << " (set runtime-lib= or TSHAPE_RUNTIME_LIB)";
      return signalPassFailure();
    }
    RuntimeApi api;
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          lib.getAddressOfSymbol(name));
      return fn != nullptr;
    };
    if (!get(api.create, "tshapeRtCreate") ||
        !get(api.destroy, "tshapeRtDestroy") ||
        !get(api.lastError, "tshapeRtLastError") ||
        !get(api.statusString, "tshapeRtStatusString") ||
        !get(api.deviceName, "tshapeRtDeviceName") ||
        !get(api.time, "tshapeRtTimeGemm") ||
        !get(api.check, "tshapeRtCheckGemm") ||
        !get(api.tolerance, "tshapeRtCheckTolerance")) {
      emitError(module.getLoc())
          << passPrefix(*this) << "'" << path
          << "' is not the tshape runtime (missing tshapeRt symbols)";
      return signalPassFailure();
    }
    tshapeRtContext *ctx = nullptr;
    // The runtime names its backends as backend= spells them.
    const std::string backendName =
        backend.getParser().findArgStrForValue(backend)->str();
    tshapeRtStatus st = api.create(
        backendName.c_str(), backendLib.empty() ? nullptr : backendLib.c_str(),
        &ctx);
    if (st != TSHAPE_RT_OK) {
      emitError(module.getLoc())
          << passPrefix(*this) << "backend " << backendName << ": "
          << api.statusString(st) << ": " << api.lastError(ctx);
      api.destroy(ctx);
      return signalPassFailure();
    }
    // A budget on the total work of the pass (every GEMM's FLOPs times its
    // runs), not per GEMM: the CPU reference runs about 1 GFLOP/s on one
    // thread, so its default of 8 GFLOP keeps a whole module to seconds.
    const double budget =
        maxGflop >= 0 ? double(maxGflop)
                      : (backend == RunBackend::Cpu ? 8.0 : 1e300);
    double spent = 0;
    int64_t measured = 0, skipped = 0;
    uint64_t seed = 1;
    const GemmCollection &collection = getAnalysis<GemmCollection>();
    for (const SkippedGemm &sk : collection.skipped()) {
      ++skipped;
      sk.op->emitRemark() << passPrefix(*this) << "skipped: " << sk.reason;
    }
    auto runOne = [&](const CollectedGemm &g) -> WalkResult {
      Operation *op = g.op;
      const ContractionShape *shape = &g.shape;
      Type elt = g.elementType;
      auto dtype = g.dtype;
      double gflop = 2.0 * shape->batch * double(shape->m) * shape->n *
                     shape->k / 1e9;
      // Every run of this GEMM: warm-up, timed, and the check's one.
      double cost = gflop * double(warmup + iters + (check ? 1 : 0));
      if (!dtype || spent + cost > budget) {
        ++skipped;
        InFlightDiagnostic diag =
            op->emitRemark() << passPrefix(*this) << "skipped: ";
        if (dtype)
          diag << llvm::formatv(
              "its {0} runs of {1} GFLOP would take the total to {2} GFLOP, "
              "over max-gflop={3} (raise it, or lower iters)",
              warmup + iters + (check ? 1 : 0), llvm::format("%.3g", gflop),
              llvm::format("%.3g", spent + cost), llvm::format("%g", budget));
        else
          diag << "element type " << elt
               << " has no GEMM in the runtime (bf16, f16, f32 incl. tf32, "
                  "f8E4M3FN)";
        return WalkResult::advance();
      }
      spent += cost;
      tshapeRtGemmDesc desc{shape->batch,   shape->m, shape->n,
                            shape->k,       rtDType(*dtype),
                            shape->transA,  shape->transB,
                            int32_t(warmup), int32_t(iters), seed++};
      tshapeRtGemmResult res{};
      tshapeRtStatus s = api.time(ctx, &desc, &res);
      if (s != TSHAPE_RT_OK) {
        op->emitError() << passPrefix(*this) << api.statusString(s)
                        << ": " << api.lastError(ctx);
        return WalkResult::interrupt();
      }
      GemmMeasurement d;
      d.backend = backendName;
      d.medianUs = res.medianUs;
      d.minUs = res.minUs;
      d.maxUs = res.maxUs;
      d.tflops = res.tflops;
      d.iters = res.iters;
      d.algoId = res.algoId;
      d.tileId = res.tileId;
      d.tileM = res.tileM;
      d.tileN = res.tileN;
      d.wavesCount = res.wavesCount;
      if (auto p = getGemmPrediction(op))
        d.predictionError = (p->predictedUs - res.medianUs) / res.medianUs;
      if (check) {
        double rel = 0;
        s = api.check(ctx, &desc, samples, &rel);
        if (s != TSHAPE_RT_OK) {
          op->emitError() << passPrefix(*this) << "check: "
                          << api.statusString(s) << ": "
                          << api.lastError(ctx);
          return WalkResult::interrupt();
        }
        d.maxRelError = rel;
        ++numChecked;
        double tol = api.tolerance(rtDType(*dtype), shape->k);
        if (rel > tol) {
          op->emitError() << passPrefix(*this) << "check failed: error "
                          << llvm::formatv("{0:e2}", rel) << " > "
                          << model::dtypeName(*dtype) << " tolerance "
                          << llvm::formatv("{0:e1}", tol);
          return WalkResult::interrupt();
        }
        op->emitRemark() << passPrefix(*this) << "check: error "
                         << llvm::formatv("{0:e2}", rel) << " <= "
                         << model::dtypeName(*dtype) << " tolerance "
                         << llvm::formatv("{0:e1}", tol);
      }
      setGemmMeasurement(op, d);
      ++measured;
      return WalkResult::advance();
    };
    bool failedRun = false;
    for (const CollectedGemm &g : collection.gemms())
      if (runOne(g).wasInterrupted()) {
        failedRun = true;
        break;
      }
    numTimed += measured;
    numSkipped += skipped;
    std::string device = api.deviceName(ctx);
    api.destroy(ctx);
    if (failedRun)
      return signalPassFailure();
    // Only attributes were added: the contractions are unchanged.
    markAllAnalysesPreserved();
    emitRemark(module.getLoc())
        << getArgument() << " on " << device << ": " << measured
        << " GEMMs measured, " << skipped << " skipped";
  }
};
} // namespace
