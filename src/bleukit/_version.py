__version__ = "0.1.0"

__all__ = ["__version__"]  # after the version: the release workflow reads the first quoted string
