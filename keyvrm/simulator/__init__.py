"""The simulated region: KeyVRM's embedded default and benchmark bed.

``clock`` (discrete-event time), ``region`` (the mutable model), ``compute`` (Nova-like
actions), ``power`` (BMC and Ceph), ``load`` (metrics), ``faults`` (scripted faults),
``generator``/``inventory`` (topology and workload), ``report`` (final-state summaries),
``simclock``/``runner``/``baton`` (KeyVRM's clock on the region's time), and
``drivers`` (the region behind KeyVRM's driver interfaces). It imports nothing of
KeyVRM above the model and the driver interfaces; the scenario machinery that runs
KeyVRM on it is ``keyvrm.scenarios``.
"""
