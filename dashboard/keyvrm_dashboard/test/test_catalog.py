"""The message catalogs are complete and current: every msgid translated, and every string the code marks in them.

Extraction is ``pybabel extract`` with the project's ``babel-django.cfg`` (what ``tox -e
extract-messages`` runs); a string marked since the catalog was last updated, or one no
longer marked, fails here until the catalog is updated (and the new one translated).
"""

import os
import tempfile

from babel.messages import frontend
from babel.messages import pofile
from django import test

DASHBOARD_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCALE_DIR = os.path.join(DASHBOARD_DIR, 'keyvrm_dashboard', 'locale')


def catalogs():
    """{language: its django.po catalog} of every language under ``locale/``."""
    found = {}
    for language in sorted(os.listdir(LOCALE_DIR)):
        path = os.path.join(LOCALE_DIR, language, 'LC_MESSAGES', 'django.po')
        if os.path.exists(path):
            with open(path, 'rb') as po:
                found[language] = pofile.read_po(po, locale=language)
    return found


def extracted_ids():
    """The msgids ``pybabel extract -F babel-django.cfg`` finds in the code and templates now."""
    with tempfile.TemporaryDirectory() as tmp:
        pot = os.path.join(tmp, 'django.pot')
        frontend.CommandLineInterface().run(['pybabel', '-q', 'extract', '-F',
                                             os.path.join(DASHBOARD_DIR, 'babel-django.cfg'), '-o', pot,
                                             DASHBOARD_DIR])
        with open(pot, 'rb') as template:
            return {message.id if isinstance(message.id, str) else tuple(message.id)
                    for message in pofile.read_po(template) if message.id}


def ids_of(catalog):
    return {message.id if isinstance(message.id, str) else tuple(message.id) for message in catalog if message.id}


class CatalogTests(test.SimpleTestCase):

    def test_every_msgid_has_a_translation_neither_empty_nor_fuzzy_with_the_same_placeholders(self):
        found = catalogs()
        self.assertIn('ru', found)
        for language, catalog in found.items():
            untranslated = [message.id for message in catalog if message.id and (
                message.fuzzy or not all(message.string if isinstance(message.string, tuple)
                                         else (message.string,)))]
            self.assertEqual([], untranslated, language)
            self.assertEqual(catalog.num_plurals, min(len(message.string) for message in catalog
                                                      if message.pluralizable), language)
            problems = [(message.id, [str(error) for error in errors]) for message, errors in catalog.check()]
            self.assertEqual([], problems, language)

    def test_every_catalog_has_exactly_the_strings_the_code_marks(self):
        marked = extracted_ids()
        self.assertIn('Same error in a row that ends it', marked)  # the config form's, by gettext_lazy
        self.assertIn('No event running.', marked)  # a template's, by {% trans %}
        self.assertIn('No suitable target host', marked)  # a reason heading, by N_
        for language, catalog in catalogs().items():
            in_catalog = ids_of(catalog)
            self.assertEqual((set(), set()), (marked - in_catalog, in_catalog - marked),
                             '%s: (new, gone) msgids; run tox -e extract-messages and translate' % language)
