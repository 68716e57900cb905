"""Console scripts of KeyVRM.

They run on native threads (oslo.service's threading backend, see ``keyvrm``) and never
import eventlet: oslo.service still installs it, and futurist, tooz and oslo.utils would
import it merely because it is there (printing its deprecation banner at every start).
Marking it absent here, before any of them is imported, makes their optional import fail
as on a machine without it.
"""

import sys

sys.modules.setdefault("eventlet", None)
