"""``python -m s3vm_cli ARGS`` runs the ``s3vm`` command."""

import sys

from s3vm_cli.main import main

sys.exit(main())
