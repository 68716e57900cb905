"""URLs of the Aggregates panel (names used by the browser tests: index, detail, edit, event)."""

from django.urls import re_path

from keyvrm_dashboard.content.aggregates import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(r'^events/(?P<event_id>[^/]+)/$', views.EventView.as_view(), name='event'),
    re_path(r'^(?P<name>[^/]+)/edit/$', views.EditView.as_view(), name='edit'),
    re_path(r'^(?P<name>[^/]+)/$', views.DetailView.as_view(), name='detail'),
]
