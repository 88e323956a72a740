"""A Python module that tests/CMakeLists.txt built from recorder sources, loaded from the path in an
environment variable (None when it is not set)."""
import importlib.machinery
import importlib.util
import os


def load(env_var, name):
    path = os.environ.get(env_var)
    if not path:
        return None
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
