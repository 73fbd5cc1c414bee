import sys

from ubunye.cli.app import main

sys.exit(main())
