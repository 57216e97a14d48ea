"""Loads the runtime's core library alone (RTLD_LOCAL, as a Python extension
would) and makes a context: the core loads the CPU driver
(libtelar_runtime_cpu.so, beside it) with its symbols global, which is what
programs resolve their kernels and libomp against."""
import ctypes, sys
core = ctypes.CDLL(sys.argv[1])  # RTLD_LOCAL: nothing of it is global
core.telarrt_context_create.restype = ctypes.c_void_p
ctx = ctypes.c_void_p(core.telarrt_context_create())
print("context", "created" if ctx.value else "null")
print("memory space", core.telarrt_context_memory_space(ctx))
glob = ctypes.CDLL(None)
for sym in ["telarrt_matmul_f32", "omp_get_max_threads"]:
    print(sym, "global" if hasattr(glob, sym) else "missing")
