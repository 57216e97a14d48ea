# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Telar"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".onnxtext", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.telar_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib",
                   "unittests"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%telar_src", config.telar_src_root))
config.substitutions.append(("%telar_obj", config.telar_obj_root))
# The project's Python: the venv made by scripts/setup-python.sh, or the
# interpreter TELAR_TEST_PYTHON names. Every end-to-end test needs it (model
# builders, reference checks, fixtures), so without it, or without one of its
# packages, the suite stops here: a missing test environment is an error, not
# a reason to skip tests.
test_python = os.environ.get("TELAR_TEST_PYTHON") or os.path.join(
    config.telar_src_root, ".venv", "bin", "python")
_modules = ["numpy", "onnx", "onnxruntime", "torch", "torchvision"]
try:
    _probe = subprocess.run(
        [test_python, "-c",
         "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] "
         "if importlib.util.find_spec(m) is None))"] + _modules,
        capture_output=True, text=True, timeout=60)
    _problem = (_probe.stdout.strip() and "lacks " + _probe.stdout.strip()) or \
        (_probe.returncode and "fails: " + _probe.stderr.strip()[-300:])
except (OSError, subprocess.TimeoutExpired) as e:
    _problem = f"cannot run: {e}"
if _problem:
    lit_config.fatal(
        f"the test environment is missing: {test_python} {_problem} (needs "
        f"{', '.join(_modules)}); scripts/setup-python.sh creates .venv, or set "
        f"TELAR_TEST_PYTHON to such an interpreter")
config.substitutions.append(("%python", test_python))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
# Tests that start ranks run OpenMPI's mpirun (through `telar-run -n N` or
# directly, always under `timeout`), which refuses to run as root, or more
# ranks than cores, unless told.
for _name in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
              "OMPI_MCA_rmaps_base_oversubscribe"]:
    config.environment.setdefault(_name, "1")
llvm_config.use_default_substitutions()

tool_dirs = [config.telar_tools_dir, config.llvm_tools_dir]
tools = ["telar-opt", "telarc", "telar-run", "telar-calibrate",
         "telar-core-latency"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
# Numeric checks of the lowering: run lowered IR with MLIR's JIT runner and
# its printing utilities (printMemrefF32 & co).
_libs = os.path.join(config.llvm_tools_dir, "..", "lib")
config.substitutions.append((
    "%mlir_runner",
    os.path.join(config.llvm_tools_dir, "mlir-runner") +
    " -entry-point-result=void -shared-libs=" +
    os.path.join(_libs, "libmlir_runner_utils.so") + "," +
    os.path.join(_libs, "libmlir_c_runner_utils.so") + "," +
    os.path.join(_libs, "libomp.so")))
# The pipeline options for such checks: no runtime library, one thread.
config.substitutions.append((
    "%lower_standalone",
    "--telar-lower-to-llvm='library-calls=0 runtime-allocator=0 parallel=0'"))
# The same with every loop nest on OpenMP threads, however small.
config.substitutions.append((
    "%lower_threaded",
    "--telar-lower-to-llvm='library-calls=0 runtime-allocator=0 min-parallel-work=1'"))
# The CUDA toolkit's ptxas (cubins, register and spill reports): tests of
# what only it can check say `REQUIRES: cuda-ptxas` and are reported
# unsupported without it; nothing else needs the toolkit.
if shutil.which("ptxas") or os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
    config.available_features.add("cuda-ptxas")
# An NVIDIA driver (libcuda.so.1 loads): the tests of what telar-run does on
# a machine without a GPU say `UNSUPPORTED: cuda-driver`. The toolkit's stub
# driver library (no GPU behind it) is `cuda-stub-driver`.
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
if os.path.exists("/usr/local/cuda/lib64/stubs/libcuda.so"):
    config.available_features.add("cuda-stub-driver")
    config.substitutions.append(
        ("%cuda_stubs", "/usr/local/cuda/lib64/stubs"))
# The CUDA target's kernels emulated on the CPU (telar-emulate-gpu), the
# same checks: standalone programs, no runtime; blocks of 7 threads, so
# that most kernels span blocks and end in a partial one.
config.substitutions.append((
    "%lower_emulated_gpu", "--telar-lower-to-emulated-gpu=block-size=7"))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# `%expect_exit N CMD...` runs CMD and fails unless it exits with N (`not`
# accepts any non-zero exit, a crash included).
config.substitutions.append((
    "%expect_exit",
    "sh " + os.path.join(config.telar_src_root, "test", "Inputs", "expect-exit.sh")))
# `%mpirun ARGS...` is OpenMPI's mpirun with a session directory of its own
# (test/Inputs/mpirun.sh): mpiruns started at once by parallel tests race on
# a shared one ("mkdir ... File exists"). `telar-run -n N` does the same.
config.substitutions.append((
    "%mpirun",
    "sh " + os.path.join(config.telar_src_root, "test", "Inputs", "mpirun.sh")))
# `%run_ranks -n N -- CMD...` runs CMD as N plain processes that meet at a
# TCP rendezvous (TELAR_RANK, TELAR_WORLD_SIZE, TELAR_MASTER_ADDR/PORT; a
# free port), with a timeout (python/telar_testing/run_ranks.py).
config.substitutions.append((
    "%run_ranks",
    test_python + " " + os.path.join(config.telar_src_root, "python",
                                     "telar_testing", "run_ranks.py")))

# `%chromium ARGS... URL`: Debian's Chromium, headless (the page tests:
# --dump-dom prints the document once its scripts ran, --screenshot=FILE
# keeps a picture). Installed by scripts/setup.sh; without it those tests
# fail. --no-sandbox: the tests may run as root.
config.substitutions.append((
    "%chromium",
    "timeout 120 chromium --headless --no-sandbox --disable-gpu "
    "--no-first-run --disable-dev-shm-usage"))

# The CPUs this process may run on (what telar-run's --bind-threads pins to).
config.substitutions.append(("%nproc", str(len(os.sched_getaffinity(0)))))

# The project's Python is there (checked above); tests still say REQUIRES:
# telar-python so that what they need stays visible.
config.available_features.add("telar-python")
# One feature per code target built (TELAR_TARGETS): `target-cpu`, ...
for _target in config.telar_targets:
    config.available_features.add("target-" + _target)
