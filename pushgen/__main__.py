import sys

from pushgen.cli import main

sys.exit(main())
