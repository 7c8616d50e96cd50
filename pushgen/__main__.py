import sys

from pushgen.cli import program

sys.exit(program())
