"""Build of the optional native kernels (statistics, pairwise matches) (everything else is in pyproject.toml).

The extension is optional: when it cannot be compiled (no compiler, no Python headers), the
install still succeeds, a one-line notice is printed, and bleukit runs its pure-Python engine
(``bleukit.engine_name()`` says which one is active).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that turns a compile failure into a notice instead of a failed install."""

    def run(self):
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - any build failure means "fall back"
            self._notice(err)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as err:  # noqa: BLE001
            self._notice(err)

    @staticmethod
    def _notice(err):
        print(
            f"bleukit: native kernel not built ({type(err).__name__}: {err}); "
            "using the pure-Python engine",
            file=sys.stderr,
        )


def _compile_args():
    if os.environ.get("BLEUKIT_NO_NATIVE"):
        return None
    if sys.platform == "win32":
        return ["/O2"]
    return ["-O3", "-std=c99"]


args = _compile_args()
ext_modules = (
    []
    if args is None
    else [
        Extension(
            "bleukit._native_kernel",
            sources=["csrc/bleukit_kernel.c"],
            extra_compile_args=args,
            optional=True,
        ),
        # The pairwise match loop (bleukit.pairwise) is its own module: it shares no code with the
        # statistics kernel, and either one missing only sends its own work to the Python path.
        Extension(
            "bleukit._pairwise_kernel",
            sources=["csrc/pairwise.c"],
            extra_compile_args=args,
            extra_link_args=[] if sys.platform == "win32" else ["-pthread"],
            optional=True,
        ),
    ]
)

setup(ext_modules=ext_modules, cmdclass={"build_ext": OptionalBuildExt})
