"""Build of the optional native kernels: each metric's kernel under csrc/metrics/ and the shared
resampling kernel (everything else is in pyproject.toml).

The extension is optional: when it cannot be compiled (no compiler, no Python headers), the
install still succeeds, a one-line notice is given, and bleukit runs its pure-Python engine
(``bleukit.engine_name()`` says which one is active; at run time bleukit warns once per process).

Where the notice shows: pip captures a build's output and prints it only with ``pip install -v``
or when the build fails (pypa/pip#2688, #2933), so a notice printed to stderr alone would be lost
on a successful install. It therefore also goes to the terminal pip runs in (``/dev/tty``), when
there is one; without a terminal (CI) it is in pip's verbose output and ``--log`` file.

``BLEUKIT_NO_NATIVE=1`` skips the kernel on purpose: no notice, and a marker file
(``bleukit/_no_native``) is installed so that bleukit does not warn at run time either.
"""

import glob
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

NO_NATIVE = bool(os.environ.get("BLEUKIT_NO_NATIVE"))


def _notice(message):
    print(message, file=sys.stderr)
    if sys.stderr.isatty() or os.name == "nt":
        return  # stderr is the terminal already (python setup.py ...)
    try:
        with open("/dev/tty", "w") as tty:
            tty.write(message + "\n")
    except OSError:  # no controlling terminal
        pass


class OptionalBuildExt(build_ext):
    """build_ext that turns compile failures into one notice instead of a failed install."""

    # No parallel build by default: csrc/common's sources are compiled into every kernel, to the
    # same object files, so kernels built at once (-j) overwrite each other's objects. With -j 16
    # on a 16-core machine the link failed ("buffers.o: error adding symbols: bad value") and the
    # install fell back to the pure-Python engine.

    def run(self):
        self._failures = []
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - any build failure means "fall back"
            self._failures.append(("", err))
        if self._failures:
            # Both kernels fail together when the compiler is missing: one notice says so once.
            names = ", ".join(name for name, _ in self._failures if name) or "native kernels"
            _, err = self._failures[0]
            _notice(
                f"bleukit: native kernel not built ({names}; {type(err).__name__}: {err}); using the "
                "pure-Python engine (slower, same scores). Install a C compiler and the Python headers "
                "and reinstall, or set BLEUKIT_NO_NATIVE=1 to choose the pure-Python engine without "
                "this notice."
            )

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as err:  # noqa: BLE001
            self.__dict__.setdefault("_failures", []).append((ext.name, err))


class BuildPy(build_py):
    """build_py that records a BLEUKIT_NO_NATIVE build in the package (read by bleukit._native)."""

    def run(self):
        super().run()
        if NO_NATIVE and not getattr(self, "editable_mode", False):
            marker = os.path.join(self.build_lib, "bleukit", "_no_native")
            os.makedirs(os.path.dirname(marker), exist_ok=True)
            with open(marker, "w") as f:
                f.write("built with BLEUKIT_NO_NATIVE: the pure-Python engine was chosen\n")


def _compile_args():
    if sys.platform == "win32":
        return ["/O2"]
    return ["-O3", "-std=c99"]


def _common():
    # csrc/common/: what every kernel shares (buffers, hashing, limits, the poll, argument checks,
    # the module definition's slots). Its headers are included as "common/<name>.h" (csrc is on
    # the include path), and its few sources are compiled into every kernel.
    folder = os.path.join("csrc", "common")
    return sorted(glob.glob(os.path.join(folder, "*.c"))), sorted(glob.glob(os.path.join(folder, "*.h")))


def _kernel(name, folder, no_fma):
    common_sources, common_headers = _common()
    return Extension(
        name,
        sources=sorted(glob.glob(os.path.join(folder, "*.c"))) + common_sources,
        # every header a source may include, so that editing one rebuilds the kernel
        depends=sorted(glob.glob(os.path.join(folder, "*.h"))) + common_headers,
        include_dirs=["csrc"],
        extra_compile_args=_compile_args() + _pthread() + (_no_fma() if no_fma else []),
        extra_link_args=_pthread(),
        optional=True,
    )


def _metric_kernels():
    # Each metric's kernel is the folder csrc/metrics/<name>/, built as the one compiled module
    # bleukit.metrics.<name>._kernel: adding a metric adds a folder, not a line here.
    # No fused multiply-add: a score computed in C must round as the reference's Python floats.
    root = os.path.join("csrc", "metrics")
    names = sorted(os.listdir(root)) if os.path.isdir(root) else []
    return [
        _kernel(f"bleukit.metrics.{name}._kernel", os.path.join(root, name), no_fma=True)
        for name in names
        if glob.glob(os.path.join(root, name, "*.c"))
    ]


def _no_fma():
    return [] if sys.platform == "win32" else ["-ffp-contract=off"]


def _pthread():
    return [] if sys.platform == "win32" else ["-pthread"]


ext_modules = (
    []
    if NO_NATIVE
    else _metric_kernels()
    + [
        # numpy's default_rng draws and the resampled sums of a statistics table (bleukit.resampling):
        # the bootstrap and approximate randomization without numpy. It is not a metric's: it sums
        # the int64 tables every metric produces, for all of them, so it is one shared module.
        _kernel("bleukit._resample_kernel", os.path.join("csrc", "resample"), no_fma=False),
    ]
)

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPy})
