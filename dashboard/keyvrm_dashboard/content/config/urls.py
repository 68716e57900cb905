"""URLs of the Global configuration panel (index, edit)."""

from django.urls import re_path

from keyvrm_dashboard.content.config import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(r'^edit/$', views.EditView.as_view(), name='edit'),
]
