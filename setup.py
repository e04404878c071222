"""Build of the optional native kernels (statistics, pairwise matches, TER) (everything else is in pyproject.toml).

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


ext_modules = (
    []
    if NO_NATIVE
    else [
        Extension(
            "bleukit._native_kernel",
            sources=["csrc/module.c", "csrc/tokenize.c", "csrc/count.c"],
            depends=["csrc/kernel.h"],
            extra_compile_args=_compile_args(),
            optional=True,
        ),
        # The pairwise match loop (bleukit.pairwise) is its own module: it shares no code with the
        # statistics kernel, and either one missing only sends its own work to the Python path.
        Extension(
            "bleukit._pairwise_kernel",
            sources=["csrc/pairwise.c"],
            depends=["csrc/kernel.h"],
            extra_compile_args=_compile_args() + ([] if sys.platform == "win32" else ["-pthread"]),
            extra_link_args=[] if sys.platform == "win32" else ["-pthread"],
            optional=True,
        ),
        # TER (bleukit.metrics.ter): tercom's tokenizer and the shift search, on `threads` threads.
        Extension(
            "bleukit.metrics.ter._kernel",
            sources=["csrc/metrics/ter/ter.c", "csrc/metrics/ter/words.c", "csrc/metrics/ter/edits.c"],
            depends=["csrc/metrics/ter/ter.h"],
            extra_compile_args=_compile_args() + ([] if sys.platform == "win32" else ["-pthread"]),
            extra_link_args=[] if sys.platform == "win32" else ["-pthread"],
            libraries=[] if sys.platform == "win32" else ["m"],
            optional=True,
        ),
    ]
)

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPy})
