# -*- Python -*-
# lit configuration for the tshape regression tests.

import os
import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TSHAPE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tshape_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tshape_src", config.tshape_src_root))
config.substitutions.append(("%examples", os.path.join(config.tshape_src_root, "examples")))
config.substitutions.append(("%tshape_build", config.tshape_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%generator", config.cmake_generator))
config.substitutions.append(("%cxx", config.cxx_compiler))

# Executing tensor-level linalg on the CPU with upstream mlir-runner.
mlir_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%lower_to_llvm",
    "--one-shot-bufferize=bufferize-function-boundaries "
    "--convert-linalg-to-loops --expand-strided-metadata --lower-affine "
    "--convert-scf-to-cf --convert-math-to-llvm --convert-arith-to-llvm "
    "--convert-cf-to-llvm --finalize-memref-to-llvm --convert-func-to-llvm "
    "--reconcile-unrealized-casts"))
config.substitutions.append(("%runner_libs",
    "-shared-libs=" + os.path.join(mlir_lib_dir, "libmlir_runner_utils.so") +
    "," + os.path.join(mlir_lib_dir, "libmlir_c_runner_utils.so")))

config.substitutions.append(("%fake_backend_lib",
    os.path.join(config.tshape_obj_root, "lib", "libtshape_runtime_fake.so")))
config.substitutions.append(("%tshape_runtime_lib",
    os.path.join(config.tshape_obj_root, "lib", "libtshape_runtime.so")))

# The sanitizer build (make check-sanitize): tools run with the sanitizer
# options, the downstream build of the install test gets the same flags, and
# tests that load tshape's instrumented runtime into upstream mlir-runner
# (not instrumented, so the ASan runtime would not come first) are skipped
# with `UNSUPPORTED: asan`.
if getattr(config, "tshape_sanitize", False):
    config.available_features.add("asan")
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    config.substitutions.append(("%sanitize_flags",
                                 "-fsanitize=address,undefined"))
else:
    config.substitutions.append(("%sanitize_flags", ""))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tshape_tools_dir, append_path=True)

tool_dirs = [config.tshape_tools_dir, config.llvm_tools_dir]
tools = [
    # The driver's name is also a word of paths (tshape/Model/...) and of
    # quoted text: substitute it only as a command.
    ToolSubst("tshape", unresolved="fatal", pre=".-^/\\<\"'", post="-./:_"),
    ToolSubst("tshape-opt", unresolved="fatal"),
    ToolSubst("tshape-translate", unresolved="fatal"),
    ToolSubst("tshape-calibrate", unresolved="fatal"),
    ToolSubst("tshape-predict", unresolved="fatal"),
    ToolSubst("tshape-plan", unresolved="fatal"),
    ToolSubst("tshape-bench-gemms", unresolved="fatal"),
    # Upstream tools from Debian's mlir-22-tools, to prove lowered IR is
    # plain MLIR.
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Third-party timings beside the clone (never copied into it): tests that
# read them say `REQUIRES: measured-data` and report UNSUPPORTED without.
measured = os.path.join(os.path.dirname(config.tshape_src_root), "shared",
                        "data", "measured")
if os.path.isdir(measured):
    config.available_features.add("measured-data")
config.substitutions.append(("%measured", measured))
# The real Hugging Face configs beside it (../shared/data/hf-configs): tests
# that import them say `REQUIRES: hf-configs`.
hf_configs = os.path.join(os.path.dirname(config.tshape_src_root), "shared",
                          "data", "hf-configs")
if os.path.isdir(hf_configs):
    config.available_features.add("hf-configs")
config.substitutions.append(("%hfconfigs", hf_configs))

# A headless browser renders tshape advise's HTML report (test/Advise):
# Debian's chromium (scripts/setup.sh installs it for make check).
# Tests that use it say `REQUIRES: chromium`.
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

if config.tshape_unittests:
    config.available_features.add("unittests")

# GPU tests say `REQUIRES: cuda-device`: a device is probed with nvidia-smi.
if config.tshape_have_cuda:
    config.available_features.add("cuda")
    import shutil, subprocess
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=20)
            if out.returncode == 0 and "GPU" in out.stdout:
                config.available_features.add("cuda-device")
        except Exception:
            pass
