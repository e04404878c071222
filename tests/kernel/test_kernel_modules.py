"""The compiled kernels as Python modules: their .pyi stubs describe every entry point and constant,
and they use multi-phase init (PEP 489) with module state, per-interpreter GIL support (3.12+)
and Py_mod_gil = Py_MOD_GIL_NOT_USED (3.13+), so a free-threaded build keeps the GIL off."""

from __future__ import annotations

import ast
import ctypes
import importlib
import importlib.util
import inspect
import os
import platform
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from bleukit import _native as loader
from bleukit.metrics.bleu import kernel as _native

REPO = Path(__file__).resolve().parents[2]
#: BLEU's one compiled module (statistics, pairwise matches, formula) and the shared resampling one.
KERNELS = ["bleukit.metrics.bleu._kernel", "bleukit._resample_kernel"]
BUILT = {name: loader.load_kernel(name) is not None for name in KERNELS}
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def _kernel(name: str):
    if not BUILT[name]:
        pytest.skip(f"{name} is not built")
    return importlib.import_module(name)


def _stub(name: str):
    """(functions by name, constants by name, classes by name) of the module's .pyi beside it."""
    tree = ast.parse((REPO / "src" / (name.replace(".", "/") + ".pyi")).read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    constants = {
        node.target.id: node
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    return functions, constants, classes


def _check_signature(func, node, method=False):
    """The stub's positional-only parameters and defaults are the C docstring's signature line's
    (a method's ``self`` among them, unannotated)."""
    runtime = inspect.signature(func)
    args = node.args
    assert not args.args and not args.kwonlyargs and args.vararg is None, f"{node.name}: positional-only"
    assert [a.arg for a in args.posonlyargs] == list(runtime.parameters), node.name
    assert all(p.kind is p.POSITIONAL_ONLY for p in runtime.parameters.values())
    defaults = [p.default for p in runtime.parameters.values() if p.default is not p.empty]
    assert [ast.literal_eval(d) for d in args.defaults] == defaults, node.name
    annotated = args.posonlyargs[1:] if method else args.posonlyargs
    assert all(a.annotation is not None for a in annotated) and node.returns is not None, node.name


@pytest.mark.parametrize("name", KERNELS)
def test_stub_describes_every_entry_point_and_constant(name):
    module = _kernel(name)
    functions, constants, classes = _stub(name)
    public = {attr for attr in dir(module) if not attr.startswith("_")}
    assert public == set(functions) | set(constants) | set(classes)
    for const, node in constants.items():
        assert isinstance(getattr(module, const), int)
        assert ast.unparse(node.annotation) == "Final[int]", const
    for func, node in functions.items():
        _check_signature(getattr(module, func), node)  # from the C docstring's signature line
    for cls, node in classes.items():
        methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
        runtime = {attr for attr in dir(getattr(module, cls)) if not attr.startswith("_")}
        assert runtime == set(methods), cls
        for method, method_node in methods.items():
            _check_signature(getattr(getattr(module, cls), method), method_node, method=True)


class _Slot(ctypes.Structure):
    _fields_ = [("slot", ctypes.c_int), ("value", ctypes.c_void_p)]


class _ModuleDef(ctypes.Structure):
    # PyModuleDef of a build with the GIL: PyModuleDef_Base (the object header, m_init, m_index,
    # m_copy), then m_name, m_doc, m_size, m_methods, m_slots
    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("m_init", ctypes.c_void_p),
        ("m_index", ctypes.c_ssize_t),
        ("m_copy", ctypes.c_void_p),
        ("m_name", ctypes.c_char_p),
        ("m_doc", ctypes.c_char_p),
        ("m_size", ctypes.c_ssize_t),
        ("m_methods", ctypes.c_void_p),
        ("m_slots", ctypes.POINTER(_Slot)),
    ]


PY_MOD_EXEC, PY_MOD_MULTIPLE_INTERPRETERS, PY_MOD_GIL = 2, 3, 4
PER_INTERPRETER_GIL_SUPPORTED, GIL_NOT_USED = 2, 1


@pytest.mark.skipif(
    platform.python_implementation() != "CPython" or FREE_THREADED,
    reason="reads CPython's PyModuleDef of a build with the GIL",
)
@pytest.mark.parametrize("name", KERNELS)
def test_multi_phase_init_declares_its_slots(name):
    module = _kernel(name)
    get_def = ctypes.pythonapi.PyModule_GetDef
    get_def.restype, get_def.argtypes = ctypes.POINTER(_ModuleDef), [ctypes.py_object]
    definition = get_def(module).contents
    assert definition.m_name == name.encode()  # the layout is read right
    assert definition.m_size > 0  # module state, not static globals
    slots = {}
    i = 0
    while definition.m_slots and definition.m_slots[i].slot:
        slots[definition.m_slots[i].slot] = definition.m_slots[i].value or 0
        i += 1
    assert PY_MOD_EXEC in slots  # multi-phase init (a single-phase module has no slots)
    expected = {PY_MOD_EXEC}
    if sys.version_info >= (3, 12):
        assert slots[PY_MOD_MULTIPLE_INTERPRETERS] == PER_INTERPRETER_GIL_SUPPORTED
        expected.add(PY_MOD_MULTIPLE_INTERPRETERS)
    if sys.version_info >= (3, 13):
        assert slots[PY_MOD_GIL] == GIL_NOT_USED
        expected.add(PY_MOD_GIL)
    assert set(slots) == expected


@pytest.mark.skipif(not FREE_THREADED, reason="needs a free-threaded build (3.13t)")
def test_importing_the_kernels_keeps_the_gil_off():
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    proc = subprocess.run(
        [
            sys.executable,
            "-X",
            "dev",
            "-W",
            "error",
            "-c",
            "import sys, bleukit, bleukit.metrics.bleu._kernel, bleukit._resample_kernel; print(sys._is_gil_enabled())",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stdout.split() == ["False"], proc.stdout + proc.stderr


@pytest.mark.parametrize("name", KERNELS)
def test_two_imports_have_their_own_state(name):
    """Module state, not globals: a second module object from the same extension works alone."""
    module = _kernel(name)
    spec = importlib.util.spec_from_file_location(name, module.__file__)
    again = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(again)
    assert again is not module
    if name == "bleukit.metrics.bleu._kernel":
        import numpy as np

        rows, nrefs = np.empty((1, 6), np.int64), np.empty(1, np.int64)
        again.text_statistics(["A b"], [["a b"]], again.TOK_13A, 1, 2, _native.character_table(False), rows, nrefs)
        assert rows.tolist() == [[2, 2, 2, 1, 2, 1]]
        first, inverse = np.empty(3, np.int64), np.empty(3, np.int64)
        assert again.unique_rows(np.array([[1, 2], [3, 4], [1, 2]], np.int64), 2, first, inverse) == 2
        assert inverse.tolist() == [0, 1, 0]
    else:
        from array import array

        assert again.Generator is not module.Generator  # a type per module object
        ours, theirs = array("q", bytes(40)), array("q", bytes(40))
        again.Generator([7]).integers(100, ours)
        module.Generator([7]).integers(100, theirs)
        assert ours == theirs and len(set(ours)) > 1
