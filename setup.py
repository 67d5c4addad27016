"""The one thing pyproject.toml cannot say: the package list is found, plus the
repository's top-level sql/ shipped inside the package as app.sql (see package-dir there).
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["app", "app.*"]), "app.sql", "app.sql.migrations", "app.sql.queries"])
