"""Import this first in an entry point (console scripts, the WSGI module): eventlet stays out.

KeyVRM's processes run on native threads (oslo.service's threading backend, see
``keyvrm``). oslo.service still installs eventlet, and futurist, tooz and oslo.utils
import it merely because it is there, printing its deprecation banner at every start
and, in a uWSGI worker, patching nothing but costing memory. Marking it absent before
any of them is imported makes their optional import fail as on a machine without it.
Libraries (and tests that import Nova, which needs eventlet) are left alone: only the
entry points import this module.
"""

import sys

sys.modules.setdefault("eventlet", None)
