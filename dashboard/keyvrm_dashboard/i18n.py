"""Babel's extractor of the plugin's Django templates: Django's own ``templatize``, then Babel's Python extractor.

``templatize`` is what Django's ``makemessages`` hands to xgettext: every ``{% trans %}``,
``{% blocktrans %}`` and ``_("...")`` of a template as a gettext call on the template's
line, everything else blanked out. ``babel-django.cfg`` names this function as the
``django`` extractor, so ``pybabel extract`` reads templates and Python in one pass
(Horizon's own configuration uses a Django extractor the same way).
"""

import io

from babel.messages import extract
from django.utils.translation import template


def extract_django(fileobj, keywords, comment_tags, options):
    """(line, function, message, comments) of each translatable string of the template in ``fileobj``."""
    source = fileobj.read().decode(options.get('encoding', 'utf-8'))
    # Python's tokenizer reads the blanked-out text as code: no line may be indented (each
    # gettext call is one line, its message a repr, so no message loses a space).
    python = '\n'.join(line.lstrip() for line in template.templatize(source).split('\n'))
    python = io.BytesIO(python.encode('utf-8'))
    return extract.extract_python(python, keywords, comment_tags, dict(options, encoding='utf-8'))
