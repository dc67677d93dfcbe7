"""The wheel holds machine code (the compiled kernels in ``battleship/_kernels``), so it is tagged for one
Python and one platform, as a wheel with an extension module is; everything else is in pyproject.toml."""

from setuptools import Distribution, setup


class CompiledDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(distclass=CompiledDistribution)
