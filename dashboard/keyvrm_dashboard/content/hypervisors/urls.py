"""URLs of the Hypervisors panel."""

from django.urls import re_path

from keyvrm_dashboard.content.hypervisors import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
]
