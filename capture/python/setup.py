"""Carries core's .vscap codec headers into the recorder's wheel and sdist (vramscope/_core/): the
tracker module compiles core's own codec on the user's machine (native.py), and those headers live
in the repository's core/, outside this package. Everything else is in pyproject.toml."""
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vramscope"))
import native  # noqa: E402  (standard library only: which headers, and where they are)


def copy_codec(package_dir):
    """Copies the codec headers into package_dir/_core, unless they are already there (an sdist's)."""
    try:
        core = native.core_dir()
    except FileNotFoundError as e:
        sys.exit("vramscope: %s; build from a checkout of the repository (pip >= 21.3 builds in place) "
                 "or with scripts/build-wheel.sh" % e)
    target = os.path.join(package_dir, "_core")
    if os.path.realpath(core) == os.path.realpath(target):
        return
    for header in native.CODEC_HEADERS:
        os.makedirs(os.path.dirname(os.path.join(target, header)), exist_ok=True)
        shutil.copyfile(os.path.join(core, header), os.path.join(target, header))


class BuildPy(build_py):
    def run(self):
        super().run()
        copy_codec(os.path.join(self.build_lib, "vramscope"))


class Sdist(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        copy_codec(os.path.join(base_dir, "vramscope"))


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
