"""Base test cases: Horizon's, with KeyVRM's service in two regions of the user's catalog."""

import copy

from django.conf import settings
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm

REGIONS = {'RegionOne': 'http://keyvrm.region-one:9877', 'RegionTwo': 'http://keyvrm.region-two:9877'}


def keyvrm_service():
    """The catalog entry of KeyVRM's API with a public endpoint in each test region."""
    return {'type': keyvrm.SERVICE_TYPE, 'name': 'keyvrm', 'id': 'keyvrm-service',
            'endpoints': [{'region': region, 'region_id': region, 'interface': 'public', 'url': url,
                           'id': 'keyvrm-%s' % region} for region, url in REGIONS.items()]}


class _KeyvrmCatalog(object):
    def _setup_test_data(self):
        super()._setup_test_data()
        self.service_catalog = copy.deepcopy(self.service_catalog) + [keyvrm_service()]

    def set_session(self, **values):
        """Put ``values`` in the user's session, as Horizon's Settings page does (e.g. ``django_timezone``).

        The test settings keep the session in a signed cookie: the client gets the new one.
        """
        session = self.client.session
        session.update(values)
        session.save()
        self.client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key

    def assertNotAuthorized(self, response):
        """Horizon's answer to a view that raised NotAuthorized: 403 with its not_authorized.html."""
        self.assertEqual(403, response.status_code)
        self.assertTemplateUsed(response, 'not_authorized.html')

    def assertModalAndPage(self, url, modal_template, text):
        """``url`` renders ``modal_template`` alone for Horizon's ajax-modal, inside base.html otherwise.

        Both answers contain ``text``. Horizon's ModalFormView picks ``_<name>.html`` for an
        XMLHttpRequest: a missing one is the 500 a row action's button gets.
        """
        modal = self.client.get(url, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        self.assertTemplateUsed(modal, modal_template)
        self.assertTemplateNotUsed(modal, 'base.html')
        self.assertContains(modal, text)
        page = self.client.get(url)
        self.assertTemplateUsed(page, 'base.html')
        self.assertTemplateUsed(page, modal_template)
        self.assertContains(page, text)


class ReaderTestCase(_KeyvrmCatalog, helpers.TestCase):
    """A user with the member and reader roles (no admin)."""


class AdminTestCase(_KeyvrmCatalog, helpers.BaseAdminViewTests):
    """A user with the admin role."""
