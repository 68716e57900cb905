"""Console scripts of KeyVRM.

They run on native threads (oslo.service's threading backend, see ``keyvrm``) and never
import eventlet (``keyvrm.noeventlet``, imported first).
"""

from keyvrm import noeventlet  # noqa: F401  (before anything that would import eventlet)
