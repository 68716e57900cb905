"""keyvrm-manage: database schema and business-config administration from the shell.

  keyvrm-manage [--config-file F] db sync | db version | db purge --before YYYY-MM-DD[THH:MM]
      (the purge commits batches of [database] purge_max_rows rows and prints each batch)
  keyvrm-manage config show [--format table|json]
  keyvrm-manage config set FIELD VALUE
"""

import datetime
import json
import sys

from oslo_config import cfg
import sqlalchemy.engine

from keyvrm import conf as keyvrm_conf
from keyvrm.db import api as db_api
from keyvrm.db import migration
from keyvrm.db import purge
from keyvrm.db import session as db_session
from keyvrm import exception
from keyvrm.model import settings
from keyvrm import service


def _db():
    return db_session.database_from_conf(keyvrm_conf.CONF)


def db_sync():
    db = _db()
    migration.upgrade(db.engine)
    print("database %s at revision %s" % (_safe_url(db.url), migration.current_revision(db.engine)))


def db_version():
    db = _db()
    current = migration.current_revision(db.engine)
    print("current: %s  head: %s" % (current or "none (empty database)", migration.head_revision()))
    return 0 if current == migration.head_revision() else 1


def db_purge():
    db = _db()
    _require_schema(db)
    text = keyvrm_conf.CONF.category.before
    try:
        before = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise exception.InvalidField("before", "expected an ISO date, e.g. 2026-01-31, got %r" % text) from None
    if before.tzinfo is not None:
        before = before.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    max_rows = keyvrm_conf.CONF.database.purge_max_rows
    counts, batches = dict.fromkeys(purge.TABLES, 0), 0
    for table, rows in db_api.purge_history(db, before, max_rows):
        counts[table] += rows
        batches += 1
        print("  batch %d: %d %s (%d so far)" % (batches, rows, table, counts[table]), flush=True)
    deleted = ", ".join("%d %s" % (n, table) for table, n in counts.items())
    print("purged before %s in %d batches of at most %d rows: %s"
          % (before.isoformat(), batches, max_rows, deleted))


def _safe_url(url):
    """The URL with any password hidden."""
    return sqlalchemy.engine.make_url(url).render_as_string(hide_password=True)


def _require_schema(db):
    if migration.current_revision(db.engine) != migration.head_revision():
        raise exception.KeyVRMError("the database schema is not current: run `keyvrm-manage db sync`",
                                    code="schema_not_current")


def config_show():
    db = _db()
    _require_schema(db)
    values = {f: getattr(db_api.get_app_config(db), f) for f in settings.APP_CONFIG_FIELDS}
    values = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    if keyvrm_conf.CONF.category.format == "json":
        print(json.dumps(values, indent=2, sort_keys=True))
    else:
        width = max(len(k) for k in values)
        for key in settings.APP_CONFIG_FIELDS:
            print("%-*s  %s" % (width, key, json.dumps(values[key])))


def config_set():
    db = _db()
    _require_schema(db)
    field, value = keyvrm_conf.CONF.category.field, keyvrm_conf.CONF.category.value
    updated = db_api.update_app_config(db, {field: value}, changed_by="keyvrm-manage")
    shown = getattr(updated, field)
    print("%s = %s" % (field, json.dumps(list(shown) if isinstance(shown, tuple) else shown)))


def _add_parsers(subparsers):
    db = subparsers.add_parser("db", help="database schema")
    db_sub = db.add_subparsers(dest="action")
    db_sub.required = True
    db_sub.add_parser("sync", help="create or upgrade the schema").set_defaults(func=db_sync)
    db_sub.add_parser("version", help="current and newest schema revision").set_defaults(
        func=db_version)
    purge = db_sub.add_parser("purge", help="delete finished events, cycles and VM history older than a date")
    purge.add_argument("--before", required=True, metavar="DATE",
                       help="ISO date or date and time, UTC unless an offset is given")
    purge.set_defaults(func=db_purge)

    config = subparsers.add_parser("config", help="the global business config (app_config)")
    config_sub = config.add_subparsers(dest="action")
    config_sub.required = True
    show = config_sub.add_parser("show", help="print every field")
    show.add_argument("--format", choices=["table", "json"], default="table")
    show.set_defaults(func=config_show)
    set_parser = config_sub.add_parser("set", help="change one field (validated, audited)")
    set_parser.add_argument("field", choices=settings.APP_CONFIG_FIELDS, metavar="FIELD")
    set_parser.add_argument("value", metavar="VALUE",
                            help="true/false, a number, or for lists a JSON list or a "
                                 "comma-separated list ('' for empty)")
    set_parser.set_defaults(func=config_set)


category_opt = cfg.SubCommandOpt("category", title="commands", handler=_add_parsers)


def main(argv=None):
    """Run one keyvrm-manage command; non-zero exit and a message naming the field on bad input."""
    conf = keyvrm_conf.CONF
    conf.register_cli_opt(category_opt)
    try:
        service.prepare(sys.argv[1:] if argv is None else argv, conf)
    except cfg.Error as exc:
        print("keyvrm-manage: %s" % exc, file=sys.stderr)
        return 2
    try:
        return conf.category.func() or 0
    except exception.InvalidField as exc:
        print("keyvrm-manage: invalid %s" % exc, file=sys.stderr)
        return 1
    except exception.KeyVRMError as exc:
        print("keyvrm-manage: %s" % exc, file=sys.stderr)
        return 1
    finally:
        conf.reset()
        conf.unregister_opt(category_opt)


if __name__ == "__main__":
    sys.exit(main())
