import sys

from participant.server.cli import main

sys.exit(main())
