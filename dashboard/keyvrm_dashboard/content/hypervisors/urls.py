"""URLs of the Hypervisors panel (index; a host's detail; drain and restore: a host's Drain and Return to service
forms)."""

from django.urls import re_path

from keyvrm_dashboard.content.hypervisors import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(r'^(?P<host>[^/]+)/$', views.DetailView.as_view(), name='detail'),
    re_path(r'^(?P<host>[^/]+)/drain/$', views.DrainView.as_view(), name='drain'),
    re_path(r'^(?P<host>[^/]+)/restore/$', views.RestoreView.as_view(), name='restore'),
]
