"""What every KeyVRM command shares: the client, API errors as CLI errors, rows and values."""

from osc_lib.cli import format_columns
from osc_lib.command import command
from osc_lib import exceptions

from keyvrmclient import v1 as client_v1


def client(command):
    return command.app.client_manager.keyvrm


def call(function, *args, **kwargs):
    """Run a client call; an API error becomes a CommandError with the API's message (field included)."""
    try:
        return function(*args, **kwargs)
    except client_v1.ClientError as exc:
        raise exceptions.CommandError(str(exc)) from None


def show(item, fields=None):
    """(names, values) of one resource for ShowOne; nested values structured in json/yaml output."""
    names = tuple(fields or sorted(item))
    return names, tuple(cell(item.get(name)) for name in names)


def emit_structured(command, answer, parsed_args) -> bool:
    """With ``-f json`` / ``-f yaml``, print the API's ``answer`` as it is and say True; else False."""
    if parsed_args.formatter not in ("json", "yaml"):
        return False
    names = tuple(sorted(answer))
    command.formatter.emit_one(names, tuple(answer[n] for n in names), command.app.stdout, parsed_args)
    return True


def ha_not_run_line(answer) -> str:
    """"HA does not run on AGG now: why" for a plan made anyway (what-if, failover); '' when it runs."""
    if answer["ha_runs"]:
        return ""
    return "HA does not run on %s now: %s\n" % (answer["aggregate"], answer["ha_not_run"]["message"])


def rows(items, columns):
    """(headers, rows) for Lister."""
    return columns, [tuple(cell(item.get(c)) for c in columns) for item in items]


def cell(value):
    """A value as a table cell: dicts and lists formatted for people, kept structured for json/yaml."""
    if isinstance(value, dict):
        return format_columns.DictColumn(value)
    if isinstance(value, list):
        return format_columns.ListColumn(value)
    return value


def parse_bool(text):
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError("expected true or false")


def add_paging(parser):
    parser.add_argument("--limit", type=int, metavar="<n>", help="Return at most <n> items (one page).")
    parser.add_argument("--marker", metavar="<id>", help="Start after this item.")


class _ById:
    """A positional id argument: subclasses set ``argument`` (its name), ``metavar`` and ``method``."""

    argument, metavar, method = "id", "<id>", None

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(self.argument, metavar=self.metavar)
        return parser

    def _fetch(self, parsed_args):
        return call(getattr(client(self), self.method), getattr(parsed_args, self.argument))


class ShowById(_ById, command.ShowOne):
    """Base of commands that show what one client call returns for one positional id."""

    def take_action(self, parsed_args):
        return show(self._fetch(parsed_args))


class ListById(_ById, command.Lister):
    """Base of commands that list, in ``columns``, what one client call returns for one positional id."""

    columns = ()

    def take_action(self, parsed_args):
        return rows(self._fetch(parsed_args), self.columns)
