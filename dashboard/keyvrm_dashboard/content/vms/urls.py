"""URLs of the VMs panel (index: look a VM up; detail; unlock)."""

from django.urls import re_path

from keyvrm_dashboard.content.vms import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(r'^(?P<vm_id>[^/]+)/unlock/$', views.UnlockView.as_view(), name='unlock'),
    re_path(r'^(?P<vm_id>[^/]+)/$', views.DetailView.as_view(), name='detail'),
]
