"""The panels in Russian, as a user who chose it in Horizon's settings reads them: the guide's terms, translated
statuses and reason headings, the config form's field names of the guide's configuration table."""

import re

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from openstack_dashboard.test import helpers

from keyvrm_dashboard.api import keyvrm
from keyvrm_dashboard.content.aggregates import test_event
from keyvrm_dashboard.content.aggregates import test_reasons
from keyvrm_dashboard.content.aggregates import tests as aggregate_tests
from keyvrm_dashboard import labels
from keyvrm_dashboard import reason_codes
from keyvrm_dashboard.test import data
from keyvrm_dashboard.test import helpers as kv_helpers

CONFIG_EDIT_URL = reverse('horizon:admin:keyvrm_config:edit')
CYRILLIC = re.compile('[а-яё]', re.IGNORECASE)


class RussianTests(aggregate_tests.IndexAnswers, kv_helpers.AdminTestCase):

    def setUp(self):
        super().setUp()
        self.client.cookies[settings.LANGUAGE_COOKIE_NAME] = 'ru'  # as Horizon's Settings page stores the choice
        # Django's LocaleMiddleware leaves the request's language active in the thread: the next tests read English
        self.addCleanup(translation.deactivate)

    @helpers.create_mocks({keyvrm: aggregate_tests.INDEX_CALLS})
    def test_the_aggregates_index_reads_in_the_guides_terms(self):
        self.answer_index()
        res = self.client.get(aggregate_tests.INDEX_URL)
        for text in ('KeyVRM: хост-агрегаты', 'Хост-агрегаты', 'Зона доступности', 'Маркер', 'Режим NOOP',
                     'Состояние последнего события', 'Все зоны', 'Редактирование конфигурации'):
            self.assertContains(res, text)
        self.assertNotContains(res, 'Host aggregates')

    @helpers.create_mocks({keyvrm: test_event.EVENT_CALLS})
    def test_the_event_page_shows_statuses_and_the_reason_heading_in_russian_beside_the_apis_code(self):
        self.mock_event_get.return_value = data.copied(data.EVENT)
        self.mock_recommendation_page.side_effect = test_event.api_page(data.RECOMMENDATIONS)
        res = self.client.get(test_event.EVENT_URL)
        self.assertContains(res, '<dd id="keyvrm-event-status">ожидает ручного действия</dd>', html=False)
        self.assertContains(res, '<span id="keyvrm-event-reason-heading">Перегруженные гипервизоры</span>'
                                 ' <code>overloaded</code>', html=False)
        self.assertContains(res, 'Рекомендации')
        res = self.client.get(test_event.EVENT_URL + '?tab=event_details__recommendations')
        self.assertContains(res, 'ожидает оператора')
        self.assertContains(res, 'Исходная нагрузка до -&gt; после')

    @helpers.create_mocks({keyvrm: ['event_get']})
    def test_the_reasons_read_with_the_guides_headings_counts_and_buttons_in_russian(self):
        event = test_reasons.hot_event(59, listed=9)
        event['reasons'] += test_reasons.HA_REASONS
        self.mock_event_get.return_value = event
        res = self.client.get(test_event.SUMMARY_URL, HTTP_X_REQUESTED_WITH='XMLHttpRequest')
        for text in ('<strong class="keyvrm-reason-heading">Перегруженные гипервизоры</strong>'
                     ' <code>overloaded</code>'
                     ' <span class="badge keyvrm-reason-count" title="гипервизоров или ВМ">59</span>',
                     '<summary>Показать все: ещё 4</summary>', 'и ещё 50, которых API не перечисляет',
                     '<strong class="keyvrm-reason-heading">Гипервизор уже обработан</strong>',
                     '>Вернуть в работу</a>'):
            self.assertContains(res, text, html=False)

    @helpers.create_mocks({keyvrm: ['config_get', 'config_update']})
    def test_the_config_form_names_its_fields_as_the_guides_table_and_says_an_api_refusal_in_russian(self):
        self.mock_config_get.return_value = data.copied(data.CONFIG)
        res = self.client.get(CONFIG_EDIT_URL)
        for label in ('KeyVRM включён', 'Фильтры Nova', 'Fence Ceph (HA)', 'Fence BMC (HA)', 'Fence Nova (HA)',
                      'Fence: интерфейсы (HA)', 'Таймаут power-check (HA), с', 'Таймаут сброса состояния ВМ (HA), с',
                      'Макс. одинаковых ошибок', 'Таймаут ручной рекомендации, мин'):
            self.assertContains(res, label)
        self.mock_config_update.side_effect = keyvrm.ClientError(
            400, 'invalid_field', "nova_filters.0: 'SameHostFilter' is not one of ['ComputeFilter']",
            field='nova_filters.0')
        post = dict(data.copied(data.CONFIG), nova_filters=['SameHostFilter'], ha_fence_interfaces='',
                    executor_max_repeated_errors=3)
        res = self.client.post(CONFIG_EDIT_URL, {k: v for k, v in post.items() if v is not False})
        self.assertEqual(["Фильтры Nova: 'SameHostFilter' — недопустимое значение для KeyVRM"],
                         res.context['form'].errors['nova_filters'])


class ReasonHeadingTests(kv_helpers.AdminTestCase):

    def test_every_reason_code_has_a_heading_in_russian(self):
        with translation.override('ru'):
            untranslated = [code for code in reason_codes.HEADINGS if not CYRILLIC.search(labels.reason_heading(code))]
            self.assertEqual('Нет подходящего целевого гипервизора', labels.reason_heading('no_target'))
        self.assertEqual([], untranslated)
        self.assertEqual('No suitable target host', labels.reason_heading('no_target'))
        self.assertEqual('a_code_of_a_newer_api', labels.reason_heading('a_code_of_a_newer_api'))
