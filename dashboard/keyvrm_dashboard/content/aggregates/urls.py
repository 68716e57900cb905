"""URLs of the Aggregates panel (names used by the browser tests: index, detail, edit, event, recommendation (one
recommendation's journal); event_summary, event_recommendations and event_journal are the fragments the event and
journal pages poll, live the one the aggregate page polls)."""

from django.urls import re_path

from keyvrm_dashboard.content.aggregates import views

urlpatterns = [
    re_path(r'^$', views.IndexView.as_view(), name='index'),
    re_path(r'^events/(?P<event_id>[^/]+)/$', views.EventView.as_view(), name='event'),
    re_path(r'^events/(?P<event_id>[^/]+)/summary/$', views.EventSummaryView.as_view(), name='event_summary'),
    re_path(r'^events/(?P<event_id>[^/]+)/recommendations/$', views.EventRecommendationsView.as_view(),
            name='event_recommendations'),
    re_path(r'^events/(?P<event_id>[^/]+)/recommendations/(?P<recommendation_id>[^/]+)/$',
            views.RecommendationView.as_view(), name='recommendation'),
    re_path(r'^events/(?P<event_id>[^/]+)/journals/(?P<recommendation_id>[^/]+)/$',
            views.EventJournalView.as_view(), name='event_journal'),
    re_path(r'^(?P<name>[^/]+)/edit/$', views.EditView.as_view(), name='edit'),
    re_path(r'^(?P<name>[^/]+)/live/$', views.LiveView.as_view(), name='live'),
    re_path(r'^(?P<name>[^/]+)/$', views.DetailView.as_view(), name='detail'),
]
