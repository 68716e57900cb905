"""KeyVRM's REST API for the panels: one python-keyvrmclient per request, in Horizon's selected region.

The endpoint is the ``vm-resource-manager`` entry of the user's catalog in the region the
region selector chose (``request.user.services_region``); the user's token authenticates.
The panels call only these functions, so their tests mock them as Horizon plugins do.
"""

from keystoneauth1 import token_endpoint
from keyvrmclient import v1
from openstack_auth import utils as auth_utils
from openstack_dashboard.api import base

ClientError = v1.ClientError
SERVICE_TYPE = v1.SERVICE_TYPE
# The microversion the panels are written for: every page reads the shapes of this version
# (1.2: reasons as lists, which ``reason_groups`` groups by code; an aggregate's own latest outcome;
# 1.4: an aggregate's failover tolerance and whether it is below its reserve; 1.5 changes only
# the failover endpoint, which the panels do not call; 1.6: an aggregate's LB level; 1.7: its
# overload persistence and least gain of a move; 1.8: a host's drain; 1.9: each recommendation with its latest
# journal line, so the event page reads a page of them in one call; 1.10: the VM list, events since, hosts by AZ,
# pages back (sort_dir) and an aggregate's number of hosts; 1.11: a drain that may cold-migrate; 1.12: a host's
# fencing record with its methods and ISO times, beside Nova's view and when the snapshot saw it).
API_VERSION = "1.12"
LB_KEYS = ("cpu", "ram", "net", "hugepages")


def keyvrmclient(request):
    """A v1 client for the region selected in Horizon, authenticated by the user's token, at ``API_VERSION``."""
    endpoint = base.url_for(request, SERVICE_TYPE)
    session = auth_utils.get_session(auth=token_endpoint.Token(endpoint, request.user.token.id))
    return v1.Client(session=session, region_name=request.user.services_region, endpoint_override=endpoint,
                     api_version=API_VERSION)


def availability_zone_list(request):
    """Availability zones with their number of aggregates."""
    return keyvrmclient(request).list_availability_zones()


def aggregate_list(request, availability_zone=None, limit=None, marker=None, sort_dir=None):
    """Aggregates by name (of one zone when given): one page of ``limit`` after ``marker``, else every page.

    ``sort_dir`` ``desc``: from the last name down (the page before ``marker``).
    """
    client = keyvrmclient(request)
    return client.list_aggregates(availability_zone=availability_zone, limit=limit, marker=marker, sort_dir=sort_dir)


def aggregate_get(request, name):
    """One aggregate with its config, last and current event, and its own latest outcome."""
    return keyvrmclient(request).get_aggregate(name)


def aggregate_load(request, name):
    """Each host's load, syn_score and overload causes from the newest snapshot, with the LB limits."""
    return keyvrmclient(request).aggregate_load(name)


def aggregate_update(request, name, **changes):
    """Change an aggregate's config; the API refuses the whole change naming the bad field."""
    return keyvrmclient(request).update_aggregate(name, **changes)


def event_list(request, aggregate, limit=None, marker=None, **filters):
    """The events of one aggregate, newest first: one page of ``limit`` after ``marker`` when given.

    ``filters``: the API's ``kind``, ``status``, ``state``, ``since`` and ``sort_dir``.
    """
    return keyvrmclient(request).list_events(aggregate=aggregate, limit=limit, marker=marker, **filters)


def event_get(request, event_id):
    """One event with its reason and its recommendations counted by status."""
    return keyvrmclient(request).get_event(event_id)


def recommendation_page(request, event_id, limit, marker=None):
    """One page of an event's recommendations after ``marker``, each with its latest journal line: (items, more).

    One API call: it asks for one item more than ``limit`` to know whether a page follows.
    """
    items = keyvrmclient(request).list_recommendations(event_id=event_id, limit=limit + 1, marker=marker)
    return items[:limit], len(items) > limit


def recommendation_get(request, recommendation_id):
    """One recommendation (its status as the row refresh shows it)."""
    return keyvrmclient(request).get_recommendation(recommendation_id)


def recommendation_run(request, recommendation_id):
    """Queue a manual recommendation; the API refuses one that is not manual_action."""
    return keyvrmclient(request).run_recommendation(recommendation_id)


def recommendation_cancel(request, recommendation_id):
    """Cancel a recommendation that has not ended."""
    return keyvrmclient(request).cancel_recommendation(recommendation_id)


def operation_list(request, recommendation_id):
    """The operations journal of one recommendation."""
    return keyvrmclient(request).list_operations(recommendation_id)


def hypervisor_list(request, aggregate=None, limit=None, marker=None, **filters):
    """KeyVRM's hypervisors by name with state, since and why: one page of ``limit`` after ``marker`` when given.

    ``aggregate`` and ``filters`` (``state``, ``availability_zone``, ``sort_dir``) as the API takes them.
    """
    return keyvrmclient(request).list_hypervisors(aggregate=aggregate, limit=limit, marker=marker, **filters)


def hypervisor_get(request, host):
    """One host: KeyVRM's state and fencing record, and Nova's view of it from the newest snapshot."""
    return keyvrmclient(request).get_hypervisor(host)


def hypervisor_restore(request, host, failback=False):
    """Return a host to service (``failback``: then its VMs KeyVRM moved off it back); the API may refuse."""
    return keyvrmclient(request).restore_hypervisor(host, failback=failback)


def hypervisor_drain(request, host, reason, allow_cold=False):
    """Drain an ok host (its compute service disabled with ``reason``, its VMs moved); the API refuses others.

    ``allow_cold``: also cold-migrate the VMs a live migration cannot move.
    """
    return keyvrmclient(request).drain_hypervisor(host, reason, allow_cold=allow_cold)


def config_get(request):
    """The global business config."""
    return keyvrmclient(request).get_config()


def config_update(request, **changes):
    """Change global config fields; the API refuses the whole change naming the bad field."""
    return keyvrmclient(request).update_config(**changes)


def config_audit_list(request, limit=None):
    """The config audit trail, newest first."""
    return keyvrmclient(request).list_config_audit(limit=limit)


def vm_list(request, limit=None, marker=None, **filters):
    """The VMs KeyVRM holds a state for, by id: one page of ``limit`` after ``marker``.

    ``filters``: the API's ``locked`` (True/False), ``state`` and ``sort_dir``.
    """
    return keyvrmclient(request).list_vms(limit=limit, marker=marker, **filters)


def vm_get(request, vm_id):
    """A VM's lifecycle state as KeyVRM holds it."""
    return keyvrmclient(request).get_vm(vm_id)


def vm_history(request, vm_id):
    """KeyVRM's actions on a VM."""
    return keyvrmclient(request).list_vm_history(vm_id)


def vm_unlock(request, vm_id):
    """Drop KeyVRM's lock on a VM (admin only in the API)."""
    return keyvrmclient(request).unlock_vm(vm_id)


def cycle_list(request, limit=None):
    """The newest cycles (``limit`` of them)."""
    return keyvrmclient(request).list_cycles(limit=limit)


def cycle_get(request, cycle_id):
    """One cycle with its per-aggregate no-op outcomes."""
    return keyvrmclient(request).get_cycle(cycle_id)
