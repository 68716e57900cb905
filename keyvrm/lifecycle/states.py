"""Which transitional state each action puts a VM in, and the failure state its timeout leads to."""

# action -> transitional state (the key of the [lifecycle] <state>_timeout options)
TRANSITIONAL_STATE_OF_ACTION = {
    "start": "starting",
    "stop": "stopping",
    "suspend": "suspending",
    "resume": "resuming",
    "create": "creating",
    "delete": "deleting",
    "evacuate": "migrating",
    "live_migrate": "migrating",
    "cold_migrate": "migrating",
    "restore": "restoring",
}

# transitional state -> the state a VM takes when that state outlives its timeout
FAILURE_STATE_OF = {
    "starting": "start_failed",
    "stopping": "stop_failed",
    "suspending": "suspend_failed",
    "resuming": "resume_failed",
    "creating": "creation_failed",
    "deleting": "deletion_failed",
    "migrating": "migration_failed",
    "restoring": "restore_failed",
}


def transitional_state(action):
    """The transitional state ``action`` puts a VM in (KeyError names an unknown action)."""
    try:
        return TRANSITIONAL_STATE_OF_ACTION[action]
    except KeyError:
        raise KeyError("no lifecycle state for action %r" % action) from None
