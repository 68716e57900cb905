"""View and form tests of the Global configuration panel: every field shown, edited, audit trail."""

from django.urls import reverse
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.config import forms as config_forms
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

INDEX_URL = reverse('horizon:admin:keyvrm_config:index')
EDIT_URL = reverse('horizon:admin:keyvrm_config:edit')


def config_post(**changes):
    """The POST of the edit form: the current config with ``changes`` (a false checkbox is left out)."""
    form = config_forms.initial_of(data.copied(data.CONFIG))
    form.update(changes)
    return {k: v for k, v in form.items() if v is not False}


class AdminConfigTests(kv_helpers.AdminTestCase):

    @helpers.create_mocks({keyvrm: ['config_get', 'config_audit_list']})
    def test_index_shows_every_global_field_and_the_audit_trail(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        self.mock_config_audit_list.return_value = data.copied(data.AUDIT)
        res = self.client.get(INDEX_URL)
        for name in data.CONFIG:
            self.assertContains(res, 'id="keyvrm-config-%s"' % name)
        self.assertEqual(set(data.CONFIG), set(config_forms.GlobalConfigForm.base_fields))
        self.assertContains(res, 'id="keyvrm-config-edit"')
        self.assertEqual(data.AUDIT, res.context['table'].data)

    @helpers.create_mocks({keyvrm: ['config_get']})
    def test_edit_opens_as_a_modal_by_ajax_and_as_a_page_of_horizon_otherwise(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        self.assertModalAndPage(EDIT_URL, 'admin/keyvrm_config/_edit.html', 'id="edit_config_form"')

    @helpers.create_mocks({keyvrm: ['config_get', 'config_update']})
    def test_edit_sends_changed_fields_with_lists_as_lists(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        res = self.client.post(EDIT_URL, config_post(period=120, ha_fence_interfaces='bond0, eth1'))
        self.assertNoFormErrors(res)
        self.assertRedirectsNoFollow(res, INDEX_URL)
        self.mock_config_update.assert_called_once_with(helpers.IsHttpRequest(), period=120,
                                                        ha_fence_interfaces=['bond0', 'eth1'])

    @helpers.create_mocks({keyvrm: ['config_get', 'config_update']})
    def test_edit_shows_an_api_schema_refusal_on_its_field_in_words_naming_the_field(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        self.mock_config_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field',
            "nova_filters.1: 'NUMATopologyFilter' is not one of ['ComputeFilter', 'SameHostFilter']",
            field='nova_filters.1')
        res = self.client.post(EDIT_URL, config_post(nova_filters=['ComputeFilter', 'NUMATopologyFilter']))
        self.assertEqual(["Nova filters: 'NUMATopologyFilter' is not a value KeyVRM accepts"],
                         res.context['form'].errors['nova_filters'])
        self.mock_config_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field', 'ha_power_check_timeout: 0 is less than the minimum of 1',
            field='ha_power_check_timeout')
        res = self.client.post(EDIT_URL, config_post(ha_power_check_timeout=5))
        self.assertEqual(['BMC power-off confirmation timeout (s): at least 1'],
                         res.context['form'].errors['ha_power_check_timeout'])

    @helpers.create_mocks({keyvrm: ['config_get', 'config_update']})
    def test_nova_filters_are_a_choice_of_the_known_filters_sent_as_a_list(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        res = self.client.get(EDIT_URL)
        self.assertContains(res, 'type="checkbox" name="nova_filters" value="NUMATopologyFilter"', html=False)
        self.assertContains(res, 'type="checkbox" name="enabled"', html=False)
        res = self.client.post(EDIT_URL, config_post(nova_filters=['NoSuchFilter']))
        self.assertIn('nova_filters', res.context['form'].errors)
        self.mock_config_update.assert_not_called()
        res = self.client.post(EDIT_URL, config_post(nova_filters=['ComputeFilter', 'NUMATopologyFilter'],
                                                     ha_fence_interfaces='bond0\neth1'))
        self.assertNoFormErrors(res)
        self.mock_config_update.assert_called_once_with(
            helpers.IsHttpRequest(), nova_filters=['ComputeFilter', 'NUMATopologyFilter'],
            ha_fence_interfaces=['bond0', 'eth1'])

    @helpers.create_mocks({keyvrm: ['config_get', 'config_audit_list']})
    def test_index_shows_booleans_as_yes_no_and_lists_one_item_a_line_never_as_reprs(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        self.mock_config_audit_list.return_value = data.copied(data.AUDIT)
        res = self.client.get(INDEX_URL)
        self.assertContains(res, '<li>ComputeFilter</li><li>ServerGroupAntiAffinityFilter</li>', html=False)
        self.assertContains(res, '<code>enabled</code></td><td><ul class="list-unstyled"><li>Yes</li>', html=False)
        self.assertContains(res, '<code>ha_fence_interfaces</code></td><td><ul class="list-unstyled"><li>(none)</li>',
                            html=False)
        for repr_ in ("True", "False", "['ComputeFilter'", "[]"):
            self.assertNotContains(res, '<li>%s' % repr_, html=False)
        self.assertEqual(['No', 'Yes'], [str(res.context['table'].get_rows()[0].cells[name].data)
                                         for name in ('old_value', 'new_value')])


class ReaderConfigTests(kv_helpers.ReaderTestCase):

    @helpers.create_mocks({keyvrm: ['config_get', 'config_audit_list', 'config_update']})
    def test_reader_sees_config_without_edit(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        self.mock_config_audit_list.return_value = []
        res = self.client.get(INDEX_URL)
        self.assertContains(res, 'id="keyvrm-config-period"')
        self.assertNotContains(res, 'keyvrm-config-edit')
        self.assertNotAuthorized(self.client.get(EDIT_URL))
        self.assertNotAuthorized(self.client.post(EDIT_URL, config_post(period=120)))
        self.mock_config_update.assert_not_called()
