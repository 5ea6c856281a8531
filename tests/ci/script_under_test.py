"""Loads the ci/ script a Python test checks: the path given as the test's first argument (what
CMake passes), else ci/NAME.py of this checkout."""

import importlib.util
import os
import sys


def load_script(name):
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "ci", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
